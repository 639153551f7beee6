"""A controlled comparison read from results files (chapter "Reproductions"; DESIGN,
"How a comparison is run").

Per dataset: each model's test accuracy as mean ± standard error over its seeds, and
the difference A - B over the seeds both models ran (paired by seed: same split, same
initial draw of everything the seed fixes), with the standard error of the paired
differences. Over datasets: the mean of the per-dataset differences with its standard
error across datasets. A run that ended at its epoch cap while validation was still
improving (best epoch within ``patience`` of the cap) was cut short, not trained to
early stopping: it is counted in ``cut``.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import pandas as pd

from lamalib.train.stopping import improved, rise_epoch, should_stop


@dataclass(frozen=True)
class Estimate:
    """A mean with its standard error over ``n`` values (``se`` is NaN if n < 2)."""

    mean: float
    se: float
    n: int

    def __str__(self) -> str:
        if self.n == 0:
            return "not run"
        if self.n == 1:
            return f"{self.mean:.1f} (1 seed)"
        return f"{self.mean:.1f} ± {self.se:.1f}"

    def signed(self, digits: int = 1) -> str:
        """A difference as ``"+x ± y"`` (``"+x"`` for one value); a mean that rounds to
        zero at ``digits`` (-0.01 at one digit, or a mean of +x and -x) prints as +0.0,
        not -0.0."""
        mean = round(self.mean, digits) + 0.0  # -0.0 + 0.0 is +0.0
        if self.n < 2:
            return f"{mean:+.{digits}f}"
        return f"{mean:+.{digits}f} ± {self.se:.{digits}f}"


def estimate(values: list[float]) -> Estimate:
    """Mean ± standard error (sample standard deviation / sqrt(n))."""
    n = len(values)
    if n == 0:
        return Estimate(math.nan, math.nan, 0)
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(n) if n > 1 else math.nan
    return Estimate(mean, se, n)


def stopped_at_cap(ran: int, best_epoch: int, epochs: int | None,
                   patience: int | None) -> bool:
    """True if a run of ``ran`` epochs hit its cap ``epochs`` before early stopping
    could fire: its best epoch is fewer than ``patience`` epochs back."""
    return epochs is not None and ran >= epochs and (
        patience is None or ran - best_epoch < patience)


def was_cut(run: dict) -> bool:
    """True if the run (a results record) stopped at its epoch cap with validation
    still improving."""
    train = run["config"]["train"]
    ran = len(run["history"])
    return stopped_at_cap(ran, run["metrics"].get("best_epoch", ran),
                          train.get("epochs"), train.get("patience"))


def stalled(run: dict, rise: float = 0.1) -> bool:
    """True if early stopping ended the run before it had begun to learn: its training
    accuracy never rose ``rise`` above its first epoch's. Such a run's test accuracy
    measures where patience met a slow start, not the model."""
    records = [h for h in run["history"] if "train_accuracy" in h]
    return bool(records) and rise_epoch(records, rise) is None


def stops_alike(run: dict, rise: float) -> bool:
    """True if ``run`` (a results record) ended where early stopping with
    ``stop_after_rise=rise`` (:mod:`lamalib.train.stopping`) would have ended it, so it
    belongs to a grid run under that rule: it was made with the rule, or it ran to its
    epoch cap, or plain patience stopped it at least ``patience`` epochs after its
    training accuracy had risen by ``rise``. The rule never stops a run sooner than
    plain patience, so the epoch where plain patience stopped is the only one to check.
    False for a plain-patience run the rule would have continued (every ``stalled``
    one): it must be run again under the rule."""
    train = run["config"]["train"]
    if train.get("stop_after_rise") is not None:
        return train["stop_after_rise"] == rise
    history = run["history"]
    if train.get("epochs") is not None and len(history) >= train["epochs"]:
        return True  # the cap ended it, as it would have under the rule
    began = rise_epoch(history, rise)
    return began is not None and history[-1]["epoch"] - began >= train["patience"]


def accuracies(runs: list[dict], model: str, dataset: str) -> dict[int, float]:
    """``{seed: test accuracy in points}`` of ``model`` on ``dataset``."""
    return {r["config"]["seed"]: 100 * r["metrics"]["test_accuracy"] for r in runs
            if r["model"] == model and r["dataset"] == dataset}


def paired_values(a: dict[int, float], b: dict[int, float]) -> dict[int, float]:
    """``{seed: A - B}`` over the seeds both ran (``{seed: accuracy}`` each)."""
    return {s: a[s] - b[s] for s in sorted(set(a) & set(b))}


def paired_difference(a: dict[int, float], b: dict[int, float]) -> Estimate:
    """A - B over the seeds both ran (``{seed: accuracy}`` each), as an Estimate."""
    return estimate(list(paired_values(a, b).values()))


def choose_on_validation(settings: dict[object, list[dict]], dataset: str,
                         min_seeds: int = 3) -> tuple[object, list[dict], list]:
    """Pick one setting of a model (e.g. SAN's penalty weight) for a comparison, the
    way DESIGN says: on the validation split, never the test set.

    ``settings`` maps each setting to its runs (any datasets). Among the settings with
    at least ``min_seeds`` runs on ``dataset``, the one with the highest mean best
    validation accuracy (``metrics["best_valid_accuracy"]``) wins. The settings are
    compared on the seeds all of them ran (each on its ``min_seeds`` lowest seeds when
    they share fewer), so seeds added later to the chosen setting, to judge a close
    comparison, cannot change the choice. Returns ``(setting, all its runs on
    dataset, the settings compared, largest first)``, or ``(None, [], [])`` when no
    setting has enough seeds.
    """
    ready = {s: [r for r in runs if r["dataset"] == dataset]
             for s, runs in settings.items()}
    ready = {s: runs for s, runs in ready.items() if len(runs) >= min_seeds}
    if not ready:
        return None, [], []
    seeds = {s: sorted(r["config"]["seed"] for r in runs) for s, runs in ready.items()}
    shared = set.intersection(*map(set, seeds.values()))

    def score(setting):  # mean best validation accuracy over the seeds compared
        used = shared if len(shared) >= min_seeds else set(seeds[setting][:min_seeds])
        return estimate([r["metrics"]["best_valid_accuracy"] for r in ready[setting]
                         if r["config"]["seed"] in used]).mean

    best = max(ready, key=score)
    return best, ready[best], sorted(ready, reverse=True)


def choice_text(setting: float, among: list, picked_elsewhere: str | None = None,
                 min_seeds: int = 3) -> str:
    """How :func:`choose_on_validation` chose ``setting`` (its returned ``among``), in
    words for a page: "0, the best on validation of 1, 0.1 and 0" or "0, the only
    one run with three seeds" (+ ", the one R8's validation picked" when
    ``picked_elsewhere`` names a dataset whose validation chose the same setting)."""
    seeds = {3: "three"}.get(min_seeds, str(min_seeds))
    if len(among) > 1:
        names = [f"{s:g}" for s in among]
        return (f"{setting:g}, the best on validation of {', '.join(names[:-1])} and "
                f"{names[-1]} (those run with {seeds} seeds)")
    return (f"{setting:g}, the only one run with {seeds} seeds"
            + (f", the one {picked_elsewhere}'s validation picked"
               if picked_elsewhere else ""))


def median_epoch_seconds(runs: list[dict], models: tuple[str, ...],
                         dataset: str) -> float | None:
    """The median wall time of one epoch (``history[i]["seconds"]``) over every epoch
    of ``models``' runs on ``dataset``, or None if none ran: what predicts a run's cost
    on the machine that made them."""
    seconds = [h["seconds"] for r in runs if r["model"] in models
               and r["dataset"] == dataset for h in r["history"]]
    return statistics.median(seconds) if seconds else None


def compare(runs: list[dict], a: str, b: str, datasets: list[str],
            others: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per dataset: ``a``, ``b`` and ``others`` as :class:`Estimate` over
    seeds, ``a - b`` paired by seed, how many runs were ``cut`` short and how many
    ``stalled`` (stopped before they learned). Where ``a`` and ``b`` share seeds, their
    columns are over those seeds only (a seed added to one arm of a close call would
    otherwise make ``a - b`` differ from the difference of the columns); ``others``
    are over all their seeds."""
    rows = []
    for dataset in datasets:
        acc = {m: accuracies(runs, m, dataset) for m in (a, b, *others)}
        if shared := set(acc[a]) & set(acc[b]):
            for m in (a, b):
                acc[m] = {s: v for s, v in acc[m].items() if s in shared}
        own = [r for r in runs if r["dataset"] == dataset and r["model"] in acc]
        rows.append({"dataset": dataset,
                     **{m: estimate(list(acc[m].values())) for m in acc},
                     f"{a} - {b}": paired_difference(acc[a], acc[b]),
                     "cut": sum(map(was_cut, own)), "stalled": sum(map(stalled, own))})
    return pd.DataFrame(rows)


def overall(table: pd.DataFrame, column: str) -> Estimate:
    """The mean over datasets of the per-dataset means in ``column`` (datasets with
    at least one run), with its standard error across datasets."""
    return estimate([e.mean for e in table[column] if e.n > 0])


def replay_stopping(history: list[dict], patience: int, rise: float | None = None
                    ) -> tuple[int, int, bool]:
    """``(last epoch, best epoch, stopped early)`` that the trainer's early stopping
    (:func:`lamalib.train.fit`) gives the epochs of ``history`` (oldest first, as a
    results file keeps them): the same improvement test
    (:func:`lamalib.train.stopping.improved`: a tie in validation accuracy goes to the
    lower loss; without a validation split, the lower training loss) and the same
    stopping test (:func:`lamalib.train.stopping.should_stop`, with ``rise`` the
    recipe's ``stop_after_rise``). Where stopping never fires, the last epoch is the
    history's last (a cap ended the run) and ``stopped early`` is False."""
    best, best_loss, best_epoch, bad = None, None, 0, 0
    for i, h in enumerate(history):
        if "valid_accuracy" in h:
            score, loss = h["valid_accuracy"], h.get("valid_loss")
        else:
            score, loss = -h["train_loss"], h["train_loss"]
        if improved(best, best_loss, score, loss):
            best, best_loss, best_epoch, bad = score, loss, h["epoch"], 0
        else:
            bad += 1
        if should_stop(history[:i + 1], bad, patience, rise):
            return h["epoch"], best_epoch, True
    return history[-1]["epoch"], best_epoch, False


def plain_stop_epoch(run: dict) -> int:
    """The epoch where plain patience (no ``stop_after_rise``) would have ended
    ``run`` (a results record): ``patience`` epochs after its best validation epoch,
    or its last epoch if that never came; the trainer's own rule
    (:func:`replay_stopping`)."""
    return replay_stopping(run["history"], run["config"]["train"]["patience"])[0]


def under_plain_patience(runs: list[dict], plain: list[dict]) -> tuple[list[dict],
                                                                       list[dict]]:
    """The grid's ``runs`` as plain patience would have left them: a run that plain
    patience would have stopped sooner is replaced by its plain-patience run from
    ``plain`` (same model, dataset and seed). Returns ``(runs, missing)``: ``missing``
    are the runs plain patience would have stopped sooner with no plain run to stand
    in (left out of ``runs``)."""
    key = lambda r: (r["model"], r["dataset"], r["config"]["seed"])  # noqa: E731
    by_key = {key(r): r for r in plain}
    kept, missing = [], []
    for r in runs:
        if plain_stop_epoch(r) == r["history"][-1]["epoch"]:
            kept.append(r)
        elif key(r) in by_key:
            kept.append(by_key[key(r)])
        else:
            missing.append(r)
    return kept, missing
