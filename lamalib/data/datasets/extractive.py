"""Extractive summarisation as sentence labelling: an article's sentences, each
labelled 1 if the greedy ROUGE oracle puts it in the summary (chapter "Finding and
injecting attention patterns": Li et al.'s CNN/DailyMail task).

An :class:`ExtractiveDoc` has one label per sentence where a
:class:`~lamalib.data.datasets.segmentation.SegmentedDoc` has one per gap; both give
``targets``, so :func:`~lamalib.data.datasets.segmentation.collate_docs` and
``DocBatches`` pad either into a ``SegmentBatch`` (``labels (B, S)`` here).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from lamalib.data.rouge import greedy_oracle


@dataclass
class ExtractiveDoc:
    """``sentences`` (token lists), ``labels`` (S values: 1 = in the extractive
    summary), the reference ``summary`` (token lists) and the document's ``name``."""

    sentences: list[list[str]]
    labels: list[int]
    summary: list[list[str]] = field(default_factory=list)
    name: str = ""

    def __post_init__(self) -> None:
        if len(self.labels) != len(self.sentences):
            raise ValueError(f"{len(self.sentences)} sentences but "
                             f"{len(self.labels)} labels")

    @property
    def targets(self) -> list[int]:
        """What ``collate_docs`` pads into ``labels``: one per sentence."""
        return self.labels


def oracle_doc(sentences: Sequence[Sequence[str]], summary: Sequence[Sequence[str]],
               name: str = "", max_sentences: int = 3,
               max_tokens: int | None = None) -> ExtractiveDoc:
    """Label ``sentences`` with the greedy ROUGE oracle against ``summary``
    (:func:`~lamalib.data.rouge.greedy_oracle`, on whole sentences); then cut
    each sentence to ``max_tokens`` tokens (None: whole) for the model."""
    picked = set(greedy_oracle(sentences, summary, max_sentences))
    return ExtractiveDoc([list(s[:max_tokens]) for s in sentences],
                         [int(i in picked) for i in range(len(sentences))],
                         [list(s) for s in summary], name)
