"""Word vectors: word2vec in PyTorch, gensim as reference, evaluation (chapter
"Word vectors")."""

from lamalib.embeddings.evaluate import (agreement, analogy_accuracy, evaluate_vectors,
                                         neighbour_overlap, similarity_spearman,
                                         spearman)
from lamalib.embeddings.gensim_bridge import (gensim_word2vec, load_text8, pretrain_for,
                                              word2vec_corpus)
from lamalib.embeddings.keyed_vectors import to_keyed_vectors
from lamalib.embeddings.polysemy import (ENGLISH_BANK, VIETNAMESE_DA, SenseInventory,
                                         sense_corpus)
from lamalib.embeddings.sampling import (context_pairs, context_windows, draw_negatives,
                                         keep_probabilities, noise_distribution,
                                         subsample)
from lamalib.embeddings.train import Word2VecConfig, Word2VecRun, train_word2vec
from lamalib.embeddings.vectors_file import read_vectors, save_vectors, vectors_for
from lamalib.embeddings.word2vec import CBOW, SkipGram, negative_sampling_loss

__all__ = [
    "CBOW", "ENGLISH_BANK", "SenseInventory", "SkipGram", "VIETNAMESE_DA",
    "Word2VecConfig", "Word2VecRun", "agreement", "analogy_accuracy", "context_pairs",
    "context_windows", "draw_negatives", "evaluate_vectors", "gensim_word2vec",
    "keep_probabilities", "load_text8", "negative_sampling_loss", "neighbour_overlap",
    "noise_distribution", "pretrain_for", "read_vectors", "save_vectors",
    "sense_corpus", "similarity_spearman",
    "spearman", "subsample", "to_keyed_vectors", "train_word2vec", "vectors_for",
    "word2vec_corpus",
]
