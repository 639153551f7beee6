"""Text data: tokenize, vocabulary, padding and batches, datasets by name.

Chapter "Setup and a first model" walks through every piece.
"""

from lamalib.data.batching import Batch, BucketBatches, make_loader, pad_sequences
from lamalib.data.dataset import TextDataset
from lamalib.data.fetch import DownloadError, data_dir, download
from lamalib.data.datasets.embedded import gensim_datapath
from lamalib.data.nsp_batching import (SegmentBatch, SegmentBatches, make_nsp_loader,
                                       with_pair_tokens)
from lamalib.data.pair_batching import PairBatch, PairBatches, make_pair_loader
from lamalib.data.pair_dataset import PairDataset
from lamalib.data.registry import (available_datasets, available_documents, load_corpus,
                                   load_dataset, load_documents)
from lamalib.data.split import stratified_split
from lamalib.data.table import Splits, label_order, load_splits, load_table
from lamalib.data.tokenize import tokenize
from lamalib.data.vocab import Vocab

__all__ = [
    "Batch",
    "BucketBatches",
    "DownloadError",
    "PairBatch",
    "PairBatches",
    "PairDataset",
    "SegmentBatch",
    "SegmentBatches",
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
    "make_nsp_loader",
    "make_pair_loader",
    "pad_sequences",
    "stratified_split",
    "tokenize",
    "with_pair_tokens",
]
