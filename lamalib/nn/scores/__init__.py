"""Attention score functions, one family per module, chosen by name (chapter
"Attention mechanisms").

``registry`` holds ``Score``, ``SCORES`` and ``build_score``; importing this package
registers every score: ``additive`` and ``concat`` (``additive.py``), ``dot``,
``scaled_dot`` and ``general`` (``multiplicative.py``), ``location`` and ``cosine``.
"""

# Re-exports; importing each family's module registers its scores.
from lamalib.nn.scores.registry import ACTIVATIONS, SCORES, Score  # noqa: F401
from lamalib.nn.scores.registry import build_score, register_score  # noqa: F401
from lamalib.nn.scores.additive import AdditiveScore, ConcatScore  # noqa: F401
from lamalib.nn.scores.multiplicative import (  # noqa: F401
    DotScore, GeneralScore, ScaledDotScore,
)
from lamalib.nn.scores.location import LocationScore  # noqa: F401
from lamalib.nn.scores.cosine import CosineScore  # noqa: F401
