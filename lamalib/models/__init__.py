"""Task models built from ``lamalib.nn``, chosen by name (``build_model``)."""

from lamalib.models.registry import (available_models, build_model, describe_models,
                                     model_kind, model_options, register_model)

__all__ = ["available_models", "build_model", "describe_models", "model_kind",
           "model_options", "register_model"]
