"""UIT-VSFC, the Vietnamese Students' Feedback Corpus (Nguyen et al., KSE 2018): 16,175
sentences of students' feedback, each with a sentiment (3 classes) and a topic (4),
read from a local copy of the official release (chapter "Attention for Vietnamese").

The corpus is distributed for research use, on request: lamalib does not download it.
Put the release's folder, ``uit-vsfc/{train,dev,test}/{sents,sentiments,topics}.txt``
(line-aligned: one lower-cased sentence, syllables separated by spaces, and its label
ids), in the data directory (``$LAMALIB_DATA``, see :func:`~lamalib.data.data_dir`).
"""

from __future__ import annotations

from lamalib.data.dataset import TextDataset
from lamalib.data.fetch import DownloadError, data_dir
from lamalib.data.textio import read_text
from lamalib.data.vietnamese import nfc

FOLDER = "uit-vsfc"
SPLITS = {"train": "train", "valid": "dev", "test": "test"}
# label id -> name, as the release's README gives them
LABELS = {"sentiments": ["negative", "neutral", "positive"],
          "topics": ["lecturer", "training_program", "facility", "others"]}


def uit_vsfc(task: str, split: str = "train") -> TextDataset:
    """One split of UIT-VSFC labelled by ``task``: ``"sentiments"`` or ``"topics"``.

    Args:
        split: ``"train"``, ``"valid"`` (the release's dev) or ``"test"``.

    Raises:
        DownloadError: no local copy in the data directory (the message says where
            to put it).
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    folder = data_dir() / FOLDER / SPLITS[split]
    files = [folder / "sents.txt", folder / f"{task}.txt"]
    if not all(f.is_file() for f in files):
        raise DownloadError(
            f"UIT-VSFC is not in the data directory: put the official release's "
            f"folder {FOLDER}/ (train/, dev/, test/ with sents.txt, sentiments.txt, "
            "topics.txt) in a folder and set LAMALIB_DATA to it; the corpus is "
            "given for research use by its authors (UIT NLP group), not downloaded")
    texts, labels = (read_text(f).rstrip("\n").split("\n") for f in files)
    if len(texts) != len(labels):
        raise ValueError(f"{files[0]} has {len(texts)} lines but {files[1]} has "
                         f"{len(labels)}: the release's files are line-aligned")
    return TextDataset([nfc(t) for t in texts], [int(y) for y in labels],
                       list(LABELS[task]), f"uit_vsfc_{task.removesuffix('s')}", split)
