"""Attention mechanisms (chapter "Attention mechanisms"): score functions by name
(``scores/``), the unified model ``Attention`` (``unified``), pooling with a learned
query (``pool``), and the variants: hard, local, hierarchical, key-value memory,
multi-dimensional and co-attention."""

from lamalib.nn.attention.coattention import CoAttention
from lamalib.nn.attention.hard import ESTIMATORS, HardAttention, reinforce_loss
from lamalib.nn.attention.hierarchical import HierarchicalAttention
from lamalib.nn.attention.local import LocalAttention
from lamalib.nn.attention.memory import KeyValueMemory
from lamalib.nn.attention.multidim import MultiDimensionalAttention
from lamalib.nn.attention.pool import AttentionPool
from lamalib.nn.attention.scores import (ACTIVATIONS, SCORES, AdditiveScore,
                                         ConcatScore, CosineScore, DotScore,
                                         GeneralScore, LocationScore, ScaledDotScore,
                                         Score, build_score, register_score)
from lamalib.nn.attention.unified import Attention

__all__ = ["ACTIVATIONS", "AdditiveScore", "Attention", "AttentionPool", "CoAttention",
           "ConcatScore", "CosineScore", "DotScore", "ESTIMATORS", "GeneralScore",
           "HardAttention", "HierarchicalAttention", "KeyValueMemory", "LocalAttention",
           "LocationScore", "MultiDimensionalAttention", "SCORES", "ScaledDotScore",
           "Score", "build_score", "register_score", "reinforce_loss"]
