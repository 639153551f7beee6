"""The record of a training run, which the book plots (chapter "Setup")."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class History:
    """One dict per epoch: ``epoch``, ``train_loss``, ``train_accuracy``,
    ``valid_loss``, ``valid_accuracy``, ``seconds``. ``best_epoch`` is the epoch whose
    weights were kept."""

    records: list[dict] = field(default_factory=list)
    best_epoch: int | None = None
    best_score: float | None = None
    best_loss: float | None = None  # breaks ties between equal scores
    stopped_early: bool = False

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> dict:
        return self.records[i]

    def column(self, key: str) -> list[float]:
        """One metric over the epochs, e.g. ``history.column("valid_accuracy")``."""
        return [r[key] for r in self.records if key in r]

    def state_dict(self) -> dict:
        return dict(
            records=self.records,
            best_epoch=self.best_epoch,
            best_score=self.best_score,
            best_loss=self.best_loss,
            stopped_early=self.stopped_early,
        )

    @classmethod
    def from_state_dict(cls, state: dict) -> "History":
        return cls(**state)
