"""Text data: tokenize, vocabulary, padding and batches, datasets by name.

Chapter "Setup and a first model" walks through every piece. Each name is imported
from its module on first use (``lamalib.lazy``): importing the package alone does not
import torch.
"""

from lamalib.data.tokenize import tokenize  # a submodule's name too: bound here
from lamalib.lazy import lazy_names

_WHERE = {
    **dict.fromkeys(["Batch", "BucketBatches", "make_loader", "pad_sequences"],
                    "batching"),
    "TextDataset": "dataset",
    **dict.fromkeys(["DownloadError", "data_dir", "download"], "fetch"),
    "gensim_datapath": "datasets.embedded",
    **dict.fromkeys(["SegmentBatch", "SegmentBatches", "make_nsp_loader",
                     "with_pair_tokens"], "nsp_batching"),
    **dict.fromkeys(["PairBatch", "PairBatches", "make_pair_loader"], "pair_batching"),
    "PairDataset": "pair_dataset",
    **dict.fromkeys(["available_datasets", "available_documents", "load_corpus",
                     "load_dataset", "load_documents"], "registry"),
    "stratified_split": "split",
    **dict.fromkeys(["Splits", "label_order", "load_splits", "load_table"], "table"),
    "Vocab": "vocab",
}
__getattr__, __dir__ = lazy_names(__name__, globals(), _WHERE)

__all__ = sorted([*_WHERE, "tokenize"])
