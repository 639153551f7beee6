"""The papers' document corpora distributed as ``label<TAB>text`` files: Reuters R8,
the 16 MTL-16 review domains (Liu et al. 2017) and IMDB (Maas et al. 2011), each
downloaded from its public source or read from a local copy (chapter "Setup").

A local copy is found in the data directory (``$LAMALIB_DATA``, see
:func:`~lamalib.data.fetch.data_dir`) under the original file name or under
``<name>/<split>.tsv`` (plain, ``.gz`` or ``.xz``); ``load_dataset(name, split,
path=FILE)`` reads one given file instead. Offline without a copy, loading fails at once
with a message that says where to put one.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from lamalib.data.dataset import TextDataset
from lamalib.data.datasets.embedded import split_indices
from lamalib.data.fetch import data_dir, local_copy, local_or_download
from lamalib.data.textio import read_bytes

R8_URL = "https://www.cs.umb.edu/~smimarog/textmining/datasets/"
R8_FILES = {"train": "r8-train-all-terms.txt", "test": "r8-test-all-terms.txt"}
R8_LABELS = ["acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade"]
MTL16_URL = ("https://raw.githubusercontent.com/FrankWork/fudan_mtl_reviews/master/"
             "data/mtl-dataset/")
MTL16_DOMAINS = ("apparel", "baby", "books", "camera_photo", "dvd", "electronics",
                 "health_personal_care", "imdb", "kitchen_housewares", "magazines",
                 "MR", "music", "software", "sports_outdoors", "toys_games", "video")
MTL16_VALID = 200  # the last 200 lines of each .task.train: 1,400 / 200 / 400
IMDB_TAR = "aclImdb_v1.tar.gz"  # https://ai.stanford.edu/~amaas/data/sentiment/
POLARITY = ["negative", "positive"]
# SHA-256 of the original files, computed from copies of them (see data/README.md).
SHA256 = {
    "r8-train-all-terms.txt":
        "2cda485b855244b8995a67b81edc691470059225776627d3c45545206f61a1b2",
    "r8-test-all-terms.txt":
        "f2cebcc0203f9092db55fc11b98377a5c30407121b1d633583580e36d0668ed9",
    "books.task.train": "40c4c5971165b9e0a509a60472c3bf06c8e1430d4944833141eb3c34d986b65e",
    "books.task.test": "b451ac03e48b599bf35dd1a450158389e1ac9018950e95c631053ac14a5b10ad",
    "dvd.task.train": "47334240d9cef76ac5f15a10f9082c3d2c6e7f9a9bb0478a3800ede2a0300771",
    "dvd.task.test": "762e6e030892375eda4f211be58624a3bb6a07c966901c79b803837d21fca4b5",
    "electronics.task.train":
        "bb2f28c4a20e3d075dd71ff049970bd445f4d47bcc8404a68eb03850413a8da7",
    "electronics.task.test":
        "a4d2e7d2a5b8b501a6611e45e1b241aa0d601388b79265cfc94c203cb52f8b8c",
    "kitchen_housewares.task.train":
        "df5c9e8473b084a6b252dfbb5e074adcaacb9638a882fee3f20d62d747f45d6f",
    "kitchen_housewares.task.test":
        "86bcc015f7cfa773880951830ac6161dc2b8717e8a69773ca11a5bd6529b2020",
    "apparel.task.train":
        "589702d71eded8ca23907acf6e434f203c8c6feb09737106f77f03707641ffc3",
    "apparel.task.test":
        "8e591ec14fa0e3d26837b9a40c99d3a93b49f47e7a3fbe4d0afe1b4e1dd45439",
    "baby.task.train": "0d884186f3aef0e12dafac0a875887fe631de0df992b15158ab177763882bf57",
    "baby.task.test": "8763bb4b8bbf83b93b6aab03706719fc742fb7d89830a6bd95ea1c2490ea58f7",
    "camera_photo.task.train":
        "425bf93c303b2f38d2f53649508ea9e55d0114679ecb00fda5c2c15ebbe9e708",
    "camera_photo.task.test":
        "3fdea0837d6c41f04720dce8d2e690bbdeb5019ecac749f8f38472ac1dcfa439",
    "health_personal_care.task.train":
        "384f1ec3d76a2f755844cac4bd7725b86bc79910dae60fc33f133e380f827b4a",
    "health_personal_care.task.test":
        "07f289177da7ebe71f1ac2ee3d5a25f190913e2a11116f0fb55862e01b60a331",
    "imdb.task.train": "16dd91ee7aebde130cfeb4d1c58bfe221ad87f1862fdb8ae694693eec3432caa",
    "imdb.task.test": "dc708b7338157a6be56a1ded26abd97f82284d0e736876a6b833ad59e8a2cd53",
    "magazines.task.train":
        "d4805a9f094c1c7befa64bc42ea846261b1290a2fd120c46f45c9e89faf782ae",
    "magazines.task.test":
        "620ecd0ccd7b7f73483b8cdcef5ca07dff92e2d57c9cf4b6e9f7d669a681f6c3",
    "MR.task.train": "a6f222085a50061dd560c3beafc968679abae74683e3d18a66b619c5e2d178dc",
    "MR.task.test": "82ec2a6d570978d173240dfd655c25e151761d7d0ace365725745a361e6fabea",
    "music.task.train": "f0b41243475c16391a02e91d87710ed87d68927d4d77f526a3d2369a98ac572e",
    "music.task.test": "54a157c56930b9e587b6b955fe4b2e3258d2f70d0d58ccbbf40a4bfd846ee204",
    "software.task.train":
        "a050cb3ea22b94b21ce70acff3a23eabd1f39307bd862d6c0cc23170eb4830f4",
    "software.task.test":
        "3b92617a5b3ad618b7aaab98546d49c2a69f46dedbceb4ec14dee1cbb4ff02d3",
    "sports_outdoors.task.train":
        "062ac0e2fb04a81c1f06f15b219634810a323a2ee187750e2f479030ebad0326",
    "sports_outdoors.task.test":
        "77394d7c91fbc69cc16bfaf79f1f945999fe2d8e0fc536f1f79d17089e611f49",
    "toys_games.task.train":
        "bb8404d3b48ab02bca2a75bb1e245297aac36b8143a81549f6485b4c2d24dd10",
    "toys_games.task.test":
        "6ee304a53f25697ee96bcb60fe07cc36d282ef343c3e0f8ae09df669ec39b116",
    "video.task.train": "2867b3e5fffc44132aa61ff49dd608eeacc503b2c9c2133680f0cb4a7a258f3e",
    "video.task.test": "8de7a49ee3001409c9049b1f52949d78c7875cb92e031b43f5cef681dfd341e4",
}


def _decode(line: bytes) -> str:
    # The MTL-16 files mix encodings line by line (dvd has UTF-8 and cp1252 lines).
    for encoding in ("utf-8", "cp1252"):
        try:
            return line.decode(encoding)
        except UnicodeDecodeError:
            continue
    return line.decode("latin-1")  # decodes any byte string


def read_label_tab_text(path: Path) -> tuple[list[str], list[str]]:
    """Texts and label strings of a ``label<TAB>text`` corpus file (compressed or not).

    Lines without a text (one in MTL-16's sports_outdoors) carry nothing to learn and
    are skipped; a line without a tab is an error naming the file and line.
    """
    texts, labels = [], []
    for n, raw in enumerate(read_bytes(path).split(b"\n"), 1):
        line = _decode(raw).rstrip("\r")
        if not line.strip():
            continue
        label, tab, text = line.partition("\t")
        if not tab:
            raise ValueError(f"{path}, line {n}: expected 'label<TAB>text'")
        if text.strip():
            texts.append(text.strip())
            labels.append(label.strip())
    return texts, labels


def _file(local_names: list[str], original: str, url: str, path) -> Path:
    """A given ``path``, else a local copy in the data directory, else a download."""
    return local_or_download(local_names, url + original, original,
                             SHA256.get(original), "'label<TAB>text' lines", path)


def _dataset(texts, labels, label_names, name, split) -> TextDataset:
    ids = {label: i for i, label in enumerate(label_names)}
    unknown = sorted(set(labels) - set(ids))
    if unknown:
        raise ValueError(f"{name}: unexpected labels {unknown}; expected {label_names}")
    return TextDataset(texts, [ids[y] for y in labels], label_names, name, split)


def r8(split: str = "train", seed: int = 0, path=None) -> TextDataset:
    """Reuters-21578 R8 (5,485 train / 2,189 test, 8 topics); valid is a seeded,
    stratified 10% of train (R8 has no official validation split)."""
    source = "test" if split == "test" else "train"
    original = R8_FILES[source]
    texts, labels = read_label_tab_text(
        _file([f"r8/{source}.tsv", f"r8/{original}", original], original, R8_URL, path))
    full = _dataset(texts, labels, R8_LABELS, "r8", split)
    if split == "test":
        return full
    return full.subset(split_indices(full.labels, split, seed, (0.9, 0.1)), split)


def mtl16(domain: str, split: str = "train", path=None) -> TextDataset:
    """One MTL-16 domain; valid is the last 200 lines of the ``.task.train`` file (the
    paper's 1,400 / 200 / 400 split)."""
    if split not in ("train", "valid", "test"):
        raise ValueError(f"split must be train, valid or test, got {split!r}")
    source = "test" if split == "test" else "train"
    original = f"{domain}.task.{source}"
    texts, labels = read_label_tab_text(
        _file([f"mtl16/{original}", original], original, MTL16_URL, path))
    labels = [POLARITY[int(y)] if y in ("0", "1") else y for y in labels]
    full = _dataset(texts, labels, POLARITY, f"mtl16_{domain.lower()}", split)
    if split == "test":
        return full
    cut = len(full.texts) - MTL16_VALID
    rows = range(cut) if split == "train" else range(cut, len(full.texts))
    return full.subset(list(rows), split)


def imdb_local(split: str, seed: int = 0) -> TextDataset | None:
    """IMDB from a local copy (``imdb/{train,test}.tsv[.xz]`` with labels neg/pos, or
    the official ``aclImdb_v1.tar.gz`` or its unpacked ``aclImdb/``), else None."""
    source = "test" if split == "test" else "train"
    tsv = local_copy([f"imdb/{source}.tsv"])
    if tsv is not None:
        texts, labels = read_label_tab_text(tsv)
        labels = ["negative" if y == "neg" else "positive" if y == "pos" else y
                  for y in labels]
    else:
        texts, labels = _acl_imdb(source)
        if not texts:
            return None
    texts = [t.replace("<br />", " ") for t in texts]
    full = _dataset(texts, labels, POLARITY, "imdb", split)
    if split == "test":
        return full
    return full.subset(split_indices(full.labels, split, seed, (0.9, 0.1)), split)


def _acl_imdb(source: str) -> tuple[list[str], list[str]]:
    texts, labels = [], []
    folder, tar = data_dir() / "aclImdb", data_dir() / IMDB_TAR
    if folder.is_dir():
        for label in ("neg", "pos"):
            for f in sorted((folder / source / label).glob("*.txt")):
                texts.append(f.read_text(encoding="utf-8"))
                labels.append(POLARITY[label == "pos"])
    elif tar.is_file():
        with tarfile.open(tar) as archive:
            for member in sorted(archive.getmembers(), key=lambda m: m.name):
                parts = member.name.split("/")
                if (len(parts) == 4 and parts[1] == source and parts[2] in
                        ("neg", "pos") and parts[3].endswith(".txt")):
                    raw = archive.extractfile(member).read()
                    texts.append(raw.decode("utf-8"))
                    labels.append(POLARITY[parts[2] == "pos"])
    return texts, labels
