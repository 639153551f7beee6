"""Text data: tokenize, vocabulary, padding and batches, datasets by name.

Chapter "Setup and a first model" walks through every piece.
"""

from .batching import Batch, BucketBatches, make_loader, pad_sequences
from .dataset import TextDataset
from .fetch import DownloadError, data_dir, download
from .embedded import gensim_datapath
from .pair_batching import PairBatch, PairBatches, make_pair_loader
from .pair_dataset import PairDataset
from .registry import (available_datasets, available_documents, load_corpus,
                       load_dataset, load_documents)
from .split import stratified_split
from .table import Splits, label_order, load_splits, load_table
from .tokenize import tokenize
from .vocab import Vocab

__all__ = [
    "Batch",
    "BucketBatches",
    "DownloadError",
    "PairBatch",
    "PairBatches",
    "PairDataset",
    "Splits",
    "TextDataset",
    "Vocab",
    "available_datasets",
    "available_documents",
    "data_dir",
    "download",
    "gensim_datapath",
    "label_order",
    "load_corpus",
    "load_dataset",
    "load_documents",
    "load_splits",
    "load_table",
    "make_loader",
    "make_pair_loader",
    "pad_sequences",
    "stratified_split",
    "tokenize",
]
