"""A labelled dataset of sentence pairs: premise, hypothesis, label (chapter
"Multi-scale self-attention", section "Sentence pairs: SNLI")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lamalib.data.dataset import TextDataset


@dataclass
class PairDataset:
    """Sentence pairs with integer labels: ``first[i]`` and ``second[i]`` (premise and
    hypothesis in natural language inference) have the label ``labels[i]``.

    ``extras`` holds per-pair facts a task knows, as in :class:`TextDataset`. Each
    side is checked as a :class:`TextDataset` is (no empty text, labels in range).
    """

    first: list[str]
    second: list[str]
    labels: list[int]
    label_names: list[str]
    name: str = "pairs"
    split: str = "train"
    extras: dict[str, list[Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.first) != len(self.second):
            raise ValueError(f"{len(self.first)} first sentences but "
                             f"{len(self.second)} second sentences")
        self.sides()  # each side's checks, with the side named in the message

    def __len__(self) -> int:
        return len(self.first)

    def __getitem__(self, i: int) -> tuple[str, str, int]:
        return self.first[i], self.second[i], self.labels[i]

    @property
    def num_classes(self) -> int:
        return len(self.label_names)

    def sides(self) -> tuple[TextDataset, TextDataset]:
        """The first and the second sentences, each a :class:`TextDataset` with the
        pairs' labels (to numericalise each side)."""
        return tuple(TextDataset(texts, self.labels, self.label_names,
                                 f"{self.name} ({side} sentences)", self.split)
                     for side, texts in (("first", self.first),
                                         ("second", self.second)))

    def sentences(self) -> TextDataset:
        """Every sentence of both sides in one :class:`TextDataset` (first, then
        second), e.g. to build the vocabulary or train word vectors."""
        return TextDataset(self.first + self.second, self.labels + self.labels,
                           self.label_names, self.name, self.split)

    def subset(self, indices: list[int], split: str | None = None) -> "PairDataset":
        """The pairs at ``indices`` (extras follow them)."""
        return PairDataset(
            [self.first[i] for i in indices], [self.second[i] for i in indices],
            [self.labels[i] for i in indices], self.label_names, self.name,
            split or self.split,
            {k: [v[i] for i in indices] for k, v in self.extras.items()})
