"""Attention score functions, one family per module, chosen by name (chapter
"Attention mechanisms").

``registry`` holds ``Score``, ``SCORES`` and ``build_score``; importing this package
registers every score: ``additive`` and ``concat`` (``additive.py``), ``dot``,
``scaled_dot`` and ``general`` (``multiplicative.py``), ``location`` and ``cosine``.
"""

# importing each family's module registers its scores
from lamalib.nn.attention.scores.registry import (ACTIVATIONS, SCORES, Score,
                                                  build_score, register_score)
from lamalib.nn.attention.scores.additive import AdditiveScore, ConcatScore
from lamalib.nn.attention.scores.multiplicative import (DotScore, GeneralScore,
                                                        ScaledDotScore)
from lamalib.nn.attention.scores.location import LocationScore
from lamalib.nn.attention.scores.cosine import CosineScore

__all__ = ["ACTIVATIONS", "AdditiveScore", "ConcatScore", "CosineScore", "DotScore",
           "GeneralScore", "LocationScore", "SCORES", "ScaledDotScore", "Score",
           "build_score", "register_score"]
