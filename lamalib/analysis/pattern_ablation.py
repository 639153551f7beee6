"""Injected against vanilla Transformers on topic segmentation, over seeds, head
budgets and combinations of patterns (chapter "Finding and injecting attention
patterns"; Li et al., 2022, Table 1 and the ablation of Table 2).

:func:`segmentation_task` builds the chapter's task (documents made of runs of
sentences from newsgroup posts of alternating groups), :func:`train_and_score` trains
one :class:`~lamalib.models.segmenter.BoundaryTagger` under an injection plan and
scores it (boundary F1, Pk, sparsity rho, training seconds), :func:`run_settings`
repeats that over settings and seeds, :func:`summarize` gives mean and standard
deviation per setting. ``tools/patterns_sweep.py`` runs the full comparison and
writes ``results/sweeps/patterns_injection/<task>.json``.
"""

from __future__ import annotations

import itertools
import statistics
import time
from dataclasses import dataclass, field
from typing import Sequence

import torch

from lamalib import runtime
from lamalib.analysis.segmentation import boundary_f1, pk
from lamalib.data import Vocab, load_dataset
from lamalib.data.datasets.segmentation import (DocBatches, SegmentedDoc,
                                                make_segmented_docs)
from lamalib.models.segmenter import BoundaryTagger, boundary_step, predict_gaps
from lamalib.nn.patterns import Injection, every_layer, sparsity, with_never
from lamalib.train import TrainConfig, fit

# How each pattern is injected, as Li et al. do: positional ones as fixed one-hot
# rows (eq. (2)), the others as masks (eq. (3)).
HOW = {"matching": "masked", "same_span": "masked", "previous": "fixed",
       "next": "fixed"}
PAPER_PATTERNS = ("matching", "same_span", "previous", "next")

# Task and model sizes per profile. "full" is what tools/patterns_sweep.py runs on
# a CPU (39 trainings in about 15 CPU-minutes); "quick" keeps the chapter under a
# minute.
SIZES = {
    "quick": dict(train=100, valid=40, test=80, epochs=5, d_model=32, d_ff=64),
    "full": dict(train=400, valid=100, test=200, epochs=6, d_model=32, d_ff=64),
}


@dataclass
class SegmentationTask:
    """Documents per split, their vocabulary, and how to train on them."""

    docs: dict[str, list[SegmentedDoc]]
    vocab: Vocab
    epochs: int = 5
    model: dict = field(default_factory=lambda: dict(n_layers=2, n_heads=8,
                                                     d_model=32, d_ff=64))
    lr: float = 3e-3
    batch_size: int = 16
    name: str = "newsgroups"
    # Ids the matching pattern never matches: segmentation_task gives the
    # vocabulary's <unk>; () is the old behaviour (<unk> matched <unk>).
    never_match: tuple[int, ...] = ()
    # Epochs without a better validation score (gap accuracy) that stop a run; None:
    # the run is its `epochs` (the best epoch's weights are still the ones scored).
    patience: int | None = None

    def batches(self, split: str, shuffle: bool = False,
                seed: int = 0) -> DocBatches:
        return DocBatches(self.docs[split], self.vocab, self.batch_size,
                          shuffle=shuffle, seed=seed)

    def patterns(self, names: Sequence[str] = PAPER_PATTERNS) -> list:
        """The predicates of ``names`` for this task's vocabulary (``never_match``
        bound into ``matching``), for ``global_relevance`` and the plots."""
        return with_never(names, self.never_match)


def segmentation_task(train: int, valid: int, test: int, epochs: int,
                      d_model: int = 32, d_ff: int = 64,
                      dataset: str = "newsgroups") -> SegmentationTask:
    """The chapter's task: documents of 2-3 runs of 2-3 sentences (10 tokens at
    most) from posts of alternating classes; splits built from disjoint posts."""
    shape = dict(segments=(2, 3), run=(2, 3), max_tokens=10)
    docs = {split: make_segmented_docs(load_dataset(dataset, split=split), n,
                                       seed=i, **shape)
            for i, (split, n) in enumerate([("train", train), ("valid", valid),
                                            ("test", test)])}
    vocab = Vocab.build([w for d in docs["train"] for s in d.sentences for w in s],
                        min_freq=2)
    return SegmentationTask(docs, vocab, epochs,
                            dict(n_layers=2, n_heads=8, d_model=d_model, d_ff=d_ff),
                            name=dataset, never_match=(vocab.unk_id,))


def plan_for(patterns: Sequence[str], n_layers: int = 2, n_heads: int = 8,
             heads_per_pattern: int = 1,
             never_match: Sequence[int] = ()) -> list[list[Injection]]:
    """Each pattern on its own ``heads_per_pattern`` heads, the same in every layer
    (Li et al.); the other heads stay free. ``[]``: a vanilla Transformer.
    ``never_match``: ids the matching pattern never matches (the vocabulary's
    ``<unk>``, :attr:`SegmentationTask.never_match`)."""
    heads = [p for p in patterns for _ in range(heads_per_pattern)]
    if len(heads) > n_heads:
        raise ValueError(f"{len(heads)} injected heads but only {n_heads} per layer")
    bound = with_never(heads, never_match)
    return every_layer(n_layers, [Injection(h, b, HOW[p]) for h, (p, b) in
                                  enumerate(zip(heads, bound))])


def trivial_baselines(task: SegmentationTask, split: str = "test",
                      draws: int = 200, seed: int = 0) -> dict[str, dict]:
    """Scores that need no model, on ``split``'s gaps: no boundary at all, every gap
    a boundary, a boundary after every second sentence, and random boundaries at the
    training split's rate (the mean over ``draws`` draws). A tagger that does not beat
    them has learned nothing that an injection could improve.

    Returns ``{name: {"F1", "Pk"}}`` (F1 over all gaps, Pk averaged over documents).
    """
    import random

    refs = [list(d.gaps) for d in task.docs[split]]
    train_gaps = [g for d in task.docs["train"] for g in d.gaps]
    rate = sum(train_gaps) / len(train_gaps)

    def score(hyps) -> dict:
        flat_r = [g for r in refs for g in r]
        flat_h = [g for h in hyps for g in h]
        return {"F1": boundary_f1(flat_r, flat_h)["f1"],
                "Pk": statistics.fmean(pk(r, h) for r, h in zip(refs, hyps))}

    out = {"no boundary": score([[0] * len(r) for r in refs]),
           "every gap a boundary": score([[1] * len(r) for r in refs]),
           "every second gap": score([[int(i % 2 == 1) for i in range(len(r))]
                                      for r in refs])}
    rng = random.Random(seed)
    draws_scored = [score([[int(rng.random() < rate) for _ in r] for r in refs])
                    for _ in range(draws)]
    out[f"random at the training rate ({rate:.2f})"] = {
        k: statistics.fmean(d[k] for d in draws_scored) for k in ("F1", "Pk")}
    return out


def seeds_for_power(sd: float, effect: float, power: float = 0.8,
                    level: float = 0.95, least: int = 5, most: int = 1000) -> int | None:
    """The seeds a paired t-test needs to detect a difference of ``effect`` with
    ``power`` at two-sided ``level``, when the paired differences have standard
    deviation ``sd``: the fewest n >= ``least`` with
    ``(t_{level, n-1} + t_{power, n-1}) * sd / sqrt(n) <= effect``; None beyond
    ``most``."""
    from scipy import stats

    for n in range(max(least, 2), most + 1):
        t = stats.t.ppf(0.5 + level / 2, n - 1) + stats.t.ppf(power, n - 1)
        if t * sd / n ** 0.5 <= effect:
            return n
    return None


def combinations(patterns: Sequence[str]) -> list[tuple[str, ...]]:
    """Each pattern alone, every pair, and all of them (Table 2's rows)."""
    out = [(p,) for p in patterns] + list(itertools.combinations(patterns, 2))
    if len(patterns) > 2:
        out.append(tuple(patterns))
    return out


def model_sparsity(model: BoundaryTagger, batches) -> float:
    """rho = 1 - |M| / N^2 over every head of every layer, mean over documents."""
    H, rhos = model.config.n_heads, []
    for b in batches:
        masks = [m if m.dim() == 4 else  # a free layer: its padding mask per head
                 m[:, None, None, :].expand(-1, H, m.shape[1], -1)
                 for m in model.attention_masks(b.tokens, b.mask, b.spans)]
        rhos.append(sparsity(masks, b.mask))
    return torch.cat(rhos).mean().item()


def train_and_score(task: SegmentationTask, plan=None, seed: int = 0):
    """Train one tagger under ``plan`` from ``seed``; score it on the test split.

    Returns ``(model, {"F1", "Pk", "rho", "seconds", "cpu_seconds", "epochs",
    "best_epoch"})``: boundary F1 over all test gaps, Pk averaged over test
    documents, the model's sparsity, the training time (wall clock, and this
    process's CPU time, which other programs on a shared machine disturb less), the
    epochs run and the one whose weights were kept (``task.patience`` stops early).
    """
    runtime.seed_everything(seed)
    model = BoundaryTagger(len(task.vocab), plan or None, **task.model)
    start, cpu = time.perf_counter(), time.process_time()
    history = fit(model, task.batches("train", True, seed), task.batches("valid"),
                  TrainConfig(epochs=task.epochs, lr=task.lr, seed=seed,
                              progress=False, patience=task.patience or task.epochs),
                  step=boundary_step)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu
    pairs = predict_gaps(model, task.batches("test"))
    ref = [g for r, _ in pairs for g in r]
    hyp = [g for _, h in pairs for g in h]
    return model, {"F1": boundary_f1(ref, hyp)["f1"],
                   "Pk": statistics.fmean(pk(r, h) for r, h in pairs),
                   "rho": model_sparsity(model, task.batches("test")),
                   "seconds": seconds, "cpu_seconds": cpu_seconds,
                   "epochs": len(history), "best_epoch": history.best_epoch}


@dataclass(frozen=True)
class Setting:
    """Which patterns are injected and on how many heads each (per layer)."""

    patterns: tuple[str, ...] = ()
    heads_per_pattern: int = 1

    @property
    def name(self) -> str:
        if not self.patterns:
            return "vanilla"
        n = len(self.patterns) * self.heads_per_pattern
        return f"{' + '.join(self.patterns)} ({n}/8 heads)"


def ablation_settings(patterns: Sequence[str] = PAPER_PATTERNS,
                      budgets: Sequence[int] = (1, 2)) -> list[Setting]:
    """Vanilla, each pattern alone and every pair on one head each, and all of them
    on each head budget in ``budgets`` (heads per pattern)."""
    out = [Setting()]
    for combo in combinations(patterns):
        if len(combo) < len(patterns):
            out.append(Setting(combo, 1))
    out += [Setting(tuple(patterns), b) for b in budgets]
    return out


def run_settings(task: SegmentationTask, settings: Sequence[Setting],
                 seeds: Sequence[int], log=None) -> list[dict]:
    """One row per setting and seed: the setting, its patterns and budget, and the
    scores of :func:`train_and_score`."""
    rows = []
    n_layers, n_heads = task.model["n_layers"], task.model["n_heads"]
    for s in settings:
        plan = plan_for(s.patterns, n_layers, n_heads, s.heads_per_pattern,
                        task.never_match)
        for seed in seeds:
            _, scores = train_and_score(task, plan if s.patterns else None, seed)
            rows.append({"setting": s.name, "patterns": list(s.patterns),
                         "heads": len(s.patterns) * s.heads_per_pattern,
                         "seed": seed, **scores})
            if log:
                log(rows[-1])
    return rows


def summarize(rows: Sequence[dict],
              keys: Sequence[str] = ("F1", "Pk", "rho", "seconds",
                                     "cpu_seconds")) -> list[dict]:
    """Mean and standard deviation (over seeds, ddof = 1) of ``keys`` per setting,
    in the order the settings first appear."""
    out = []
    for name in dict.fromkeys(r["setting"] for r in rows):
        mine = [r for r in rows if r["setting"] == name]
        row = {"setting": name, "heads": mine[0]["heads"], "runs": len(mine)}
        for k in keys:
            vals = [r[k] for r in mine]
            row[k] = statistics.fmean(vals)
            row[f"{k}_sd"] = statistics.stdev(vals) if len(vals) > 1 else 0.0
        out.append(row)
    return out
