"""What one experiment run is: a model, a dataset, their options, the training recipe
and a seed (chapter "Reproductions"; ``python -m lamalib.experiments``)."""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from lamalib.train import TrainConfig

# A training file with one of these stems is named by its folder:
# data/questions/train.tsv -> "questions".
SPLIT_STEMS = ("train", "training", "dev", "valid", "validation", "test")
NAME_BYTES = 100  # a results file's name must fit a file system's 255 bytes
# names Windows refuses for a file, whatever its suffix
RESERVED = {"con", "prn", "aux", "nul", *(f"{d}{i}" for d in ("com", "lpt")
                                          for i in range(1, 10))}


def _name_char(c: str) -> bool:
    """A letter or digit of any script (with its combining marks: Devanagari's vowel
    signs), or ``.``, ``_``, ``-``; never a path separator or a space."""
    return c.isalnum() or c in "._-" or unicodedata.category(c).startswith("M")


def check_name(name: str) -> str:
    """A results name (NFC): letters of any script, digits, ``-``, ``_`` and ``.``,
    starting with a letter or digit, without ``__`` (which separates a results file
    name's parts), at most ``NAME_BYTES`` bytes in UTF-8 and no name Windows
    reserves (``con``, ``nul``, ...)."""
    name = unicodedata.normalize("NFC", name)  # macOS spells file names decomposed
    if (not name or not name[0].isalnum() or not all(map(_name_char, name))
            or "__" in name):
        raise ValueError(f"--name {name!r}: a name takes letters (of any script), "
                         "digits, '-', '_' and '.', starts with a letter or digit and "
                         "has no '__' (no space or '/')")
    if len(name.encode()) > NAME_BYTES:
        raise ValueError(f"--name {name[:20]}...: {len(name.encode())} bytes in UTF-8; "
                         f"give a name of at most {NAME_BYTES}")
    if name.split(".")[0].lower() in RESERVED:
        raise ValueError(f"--name {name!r}: Windows reserves this file name; give "
                         f"another, e.g. {name}-data")
    return name


def _safe(text: str) -> str:
    """``text`` as a results name: each run of other characters as ``-``."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(c if _name_char(c) else " " for c in text)
    text = re.sub(r"_{2,}", "_", re.sub(r" +", "-", text))
    while text and not text[0].isalnum():  # starts with a letter or digit
        text = text[1:]
    return text or "data"


def file_label(train_file: str) -> str:
    """The default name of a run on the user's files: the training file's stem, or
    its folder's name where the stem is a generic split name (train, dev, test...)."""
    path = Path(train_file)
    stem = path.name.split(".")[0]
    folder = path.resolve().parent.name if stem.lower() in SPLIT_STEMS else ""
    return _safe(folder or stem)


@dataclass
class RunSpec:
    experiment: str = "run"  # "run", or a paper's grid ("lama")
    model: str = "avg"  # a name from lamalib.models.available_models("classifier")
    dataset: str = "movie_reviews"  # a registry name, or "file" with train/test paths
    seed: int = 0  # seeds the weights' initialisation, dropout and batch order
    model_options: dict = field(default_factory=dict)  # build_model(**options)
    train: dict = field(default_factory=dict)  # TrainConfig fields
    batch_size: int = 32  # training batch size (the LAMA paper: 32)
    eval_batch_size: int = 128  # validation / test batches
    max_len: int | None = None  # truncate texts to this many tokens (None: keep all)
    min_freq: int = 1  # vocabulary: rarer words map to <unk>
    # "plain" (lamalib's tokenizer: Vietnamese syllables) or "vi-words" (a Vietnamese
    # word segmenter, lamalib[vi]; lamalib.data.vietnamese.TOKENIZERS)
    tokenizer: str = "plain"
    # "random", "word2vec" (trained on the train split) or the path of a vectors file
    # in GloVe's or word2vec's text format (e.g. glove.840B.300d.txt)
    embeddings: str = "random"
    word2vec_min_count: int = 5  # the LAMA paper: words seen < 5 times are dropped
    word2vec_epochs: int = 5  # passes of gensim's word2vec over the training texts
    train_file: str | None = None  # dataset "file": the user's files (TSV/CSV, .gz/.xz)
    valid_file: str | None = None  # dataset "file": None splits 10% of train, stratified
    test_file: str | None = None
    # dataset "file" without a test file: this share of the training file (from each
    # class, seeded as the validation split) is the test split, e.g. 0.1
    test_fraction: float | None = None
    file_options: dict = field(default_factory=dict)  # load_splits options (header, ...)
    # None, or "balanced": each class's training examples weigh n / (C * n_c) in the
    # loss (lamalib.train.steps.balanced_weights), so a rare class counts as much
    class_weights: str | None = None
    name: str | None = None  # the results name of the data (default: dataset_label)
    recipe: str | None = None  # a "run" started from this paper's settings (--recipe)

    def train_config(self, **overrides) -> TrainConfig:
        known = {f.name for f in dataclasses.fields(TrainConfig)}
        unknown = sorted(set(self.train) - known)
        if unknown:
            raise ValueError(f"unknown training option(s) {unknown}; TrainConfig has "
                             f"{sorted(known)}")
        values = {**self.train, **overrides}
        if "betas" in values:
            values["betas"] = tuple(values["betas"])
        return TrainConfig(seed=self.seed, **values)

    def dataset_label(self) -> str:
        """``name`` if given; else a registry dataset's name, or for the user's files
        :func:`file_label` of the training file."""
        if self.name:
            return self.name
        label = self.dataset if self.dataset != "file" else file_label(self.train_file)
        # words and syllables of one data set are two runs: two files
        return label if self.tokenizer == "plain" else f"{label}-{self.tokenizer}"

    def result_name(self) -> str:
        """``<experiment>__<model>__<dataset>__s<seed>.json``; a run started from a
        paper's recipe is ``run-<recipe>__...``, apart from the default run."""
        experiment = (f"{self.experiment}-{self.recipe}" if self.recipe
                      else self.experiment)
        return (f"{experiment}__{self.model}__{self.dataset_label()}"
                f"__s{self.seed}.json")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def fields(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]
