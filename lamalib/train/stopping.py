"""When early stopping fires (chapter "Setup and a first model").

Plain early stopping ends a run ``patience`` epochs after its best validation score.
A model that sits near chance for its first epochs (a small learning rate, say) can
have a noisy validation peak there and be stopped before it has begun to learn. With
``rise`` set, patience counts only once the run has begun: from the first epoch whose
training accuracy is at least ``rise`` above the first epoch's. A run that had begun
``patience`` epochs before plain patience ran out stops at the same epoch either way.
"""

from __future__ import annotations

from collections.abc import Sequence


def improved(best_score: float | None, best_loss: float | None, score: float,
             loss: float | None) -> bool:
    """Whether an epoch with validation ``score`` and ``loss`` beats the best so far
    (``best_score``/``best_loss``, None before the first epoch): a higher score, or the
    same score with a lower loss (small validation sets tie on accuracy often, and the
    loss still says which weights fit better). The trainer and every replay of its
    stopping (:func:`lamalib.experiments.comparison.plain_stop_epoch`) use this one test."""
    if best_score is None:
        return True
    if score != best_score:
        return score > best_score
    return loss is not None and (best_loss is None or loss < best_loss)


def rise_epoch(records: Sequence[dict], rise: float) -> int | None:
    """The first epoch whose ``train_accuracy`` is at least ``rise`` above the first
    record's, or None if none is yet."""
    if not records:
        return None
    first = records[0]["train_accuracy"]
    return next((r["epoch"] for r in records if r["train_accuracy"] >= first + rise),
                None)


def should_stop(records: Sequence[dict], bad_epochs: int, patience: int,
                rise: float | None = None) -> bool:
    """True when the run whose epochs are ``records`` (oldest first, each with
    ``epoch`` and ``train_accuracy``) stops: ``bad_epochs`` epochs since its best
    validation score reach ``patience`` and, with ``rise``, ``patience`` epochs have
    also passed since training accuracy rose by ``rise`` (:func:`rise_epoch`)."""
    if bad_epochs < patience:
        return False
    if rise is None:
        return True
    began = rise_epoch(records, rise)
    return began is not None and records[-1]["epoch"] - began >= patience
