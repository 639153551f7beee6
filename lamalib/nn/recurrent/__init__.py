"""Recurrent networks (chapter "Recurrent networks and the GRU"): RNN, LSTM and GRU
cells written out (``cells``), the BiGRU encoder on ``torch.nn.GRU`` (``bigru``) and
the word-embedding layer that classifiers start from (``embedding``)."""

from lamalib.nn.recurrent.bigru import BiGRU
from lamalib.nn.recurrent.cells import (CELLS, GRUCell, LSTMCell, Recurrent, RNNCell,
                                        input_gradient_norms)
from lamalib.nn.recurrent.embedding import load_pretrained_, word_embedding

__all__ = ["BiGRU", "CELLS", "GRUCell", "LSTMCell", "RNNCell", "Recurrent",
           "input_gradient_norms", "load_pretrained_", "word_embedding"]
