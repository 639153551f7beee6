"""Word vectors in gensim's ``KeyedVectors`` (chapter "Word vectors"): neighbours,
similarity and analogy evaluation read them, for our vectors and gensim's alike."""

from __future__ import annotations

from typing import Sequence

import numpy as np


def to_keyed_vectors(words: Sequence[str], vectors: np.ndarray):
    """gensim ``KeyedVectors`` holding ``vectors (V, E)`` under the keys ``words``."""
    from gensim.models import KeyedVectors

    vectors = np.asarray(vectors, dtype=np.float32)  # (V, E)
    kv = KeyedVectors(vector_size=vectors.shape[1])
    kv.add_vectors(list(words), vectors)
    return kv
