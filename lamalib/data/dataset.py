"""A labelled text dataset: texts, labels, label names, extras (chapter "Setup")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lamalib.data.tokenize import tokenize


@dataclass
class TextDataset:
    """Texts with integer labels. ``extras`` holds per-example facts that some tasks
    know, e.g. ``extras["keyword_positions"]`` for the synthetic sentiment task."""

    texts: list[str]
    labels: list[int]
    label_names: list[str]
    name: str = "dataset"
    split: str = "train"
    extras: dict[str, list[Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.texts:
            raise ValueError(
                f"Dataset {self.name!r} ({self.split}) is empty: "
                "check the file or filter."
            )
        if len(self.texts) != len(self.labels):
            raise ValueError(f"{len(self.texts)} texts but {len(self.labels)} labels")
        for i, text in enumerate(self.texts):
            if not text or not text.strip():
                raise ValueError(
                    f"Dataset {self.name!r} ({self.split}) has an empty text "
                    f"at row {i}; "
                    "remove empty rows before loading."
                )
        bad = [y for y in self.labels if not 0 <= y < len(self.label_names)]
        if bad:
            raise ValueError(
                f"labels {sorted(set(bad))} outside 0..{len(self.label_names) - 1}"
            )

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, i: int) -> tuple[str, int]:
        return self.texts[i], self.labels[i]

    @property
    def num_classes(self) -> int:
        return len(self.label_names)

    def tokens(self) -> list[list[str]]:
        """Every text tokenized with :func:`tokenize`."""
        return [tokenize(t) for t in self.texts]

    def sentences(self) -> "TextDataset":
        """Every text: the dataset itself (a ``PairDataset`` gives both sides'
        sentences), e.g. to build the vocabulary or train word vectors."""
        return self

    def subset(self, indices: list[int], split: str | None = None) -> "TextDataset":
        """The examples at ``indices`` (extras follow them)."""
        return TextDataset(
            [self.texts[i] for i in indices],
            [self.labels[i] for i in indices],
            self.label_names,
            self.name,
            split or self.split,
            {k: [v[i] for i in indices] for k, v in self.extras.items()},
        )
