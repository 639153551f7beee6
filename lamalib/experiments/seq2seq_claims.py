"""The seq2seq comparison's table and verdicts, read from results files (chapter
"Attention mechanisms", section "Attention on real sentences").

Runs are ``seq2seq__<model>__<dataset>__s<seed>.json`` files written by
``python -m lamalib.experiments seq2seq``. Every call on the page compares two arms on
the same seeds (paired by seed: same split, same initial seed) and is judged by
:func:`lamalib.experiments.claims.judge` (95 % t-interval over the seeds); Holm's
correction runs over all the page's calls (:func:`holm_calls`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lamalib.experiments.claims import Verdict, holm, judge, t_quantile
from lamalib.experiments.comparison import estimate

PLAIN = "plain"


def load_seq2seq_runs(folder: str | Path) -> list[dict]:
    """Every complete seq2seq results file of ``folder``, with its file name."""
    runs = []
    for path in sorted(Path(folder).glob("seq2seq__*__*__s*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "bleu" in data.get("metrics", {}):
            runs.append({**data, "file": path.name})
    return runs


def by_seed(runs: list[dict], dataset: str, model: str, metric: str = "bleu"
            ) -> dict[int, float]:
    """``{seed: metric}`` of one arm on one dataset."""
    return {r["config"]["seed"]: r["metrics"][metric] for r in runs
            if r["dataset"] == dataset and r["model"] == model
            and metric in r["metrics"]}


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % t-interval (NaN under two values)."""
    est = estimate(values)
    if est.n < 2:
        return est.mean, float("nan")
    return est.mean, t_quantile(est.n) * est.se


def score_table(runs: list[dict], metrics=("bleu", "chrf", "bleu_beam")
                ) -> pd.DataFrame:
    """One row per (dataset, model): seeds, each metric's mean and 95 % half-width,
    mean epochs run and whether every run stopped by patience (not the cap)."""
    rows = []
    keys = sorted({(r["dataset"], r["model"]) for r in runs})
    for dataset, model in keys:
        mine = [r for r in runs if r["dataset"] == dataset and r["model"] == model]
        row = {"dataset": dataset, "model": model, "seeds": len(mine)}
        for m in metrics:
            mean, half = interval([r["metrics"][m] for r in mine if m in r["metrics"]])
            row[m], row[f"{m}_pm"] = mean, half
        row["epochs"] = sum(len(r["history"]) for r in mine) / len(mine)
        row["all_stopped_early"] = all(r["stopped_early"] for r in mine)
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass
class Call:
    """One directional comparison on the page: ``a`` beats ``b`` (``what``), the
    paired values ``diffs`` by seed, and the rule's verdict."""

    name: str
    dataset: str
    what: str
    diffs: dict[int, float]
    verdict: Verdict
    survives_holm: bool = False


def paired_call(name: str, dataset: str, what: str, a: dict[int, float],
                b: dict[int, float]) -> Call:
    """The call "a beats b" from per-seed values of both (seeds in both only)."""
    seeds = sorted(set(a) & set(b))
    diffs = {s: a[s] - b[s] for s in seeds}
    return Call(name, dataset, what, diffs, judge(estimate(list(diffs.values()))))


def bucket_bleu(run: dict, longest: bool) -> float:
    """BLEU of a run's shortest or longest source-length bucket."""
    rows = run["bleu_by_length"]
    return (rows[-1] if longest else rows[0])["bleu"]


def bottleneck_call(runs: list[dict], dataset: str, model: str) -> Call:
    """"Attention helps more on long sentences": per seed, (model - plain) BLEU on the
    longest bucket minus (model - plain) BLEU on the shortest (Bahdanau et al.'s
    Figure 2 as one number: positive when the fixed vector loses more with length)."""
    def gaps(name):
        return {r["config"]["seed"]: bucket_bleu(r, True) - bucket_bleu(r, False)
                for r in runs if r["dataset"] == dataset and r["model"] == name}
    # (A_long - A_short) - (P_long - P_short) = (A - P)_long - (A - P)_short
    return paired_call(f"{model} gains more on long sources", dataset,
                       f"{model} - plain, longest minus shortest bucket (BLEU)",
                       gaps(model), gaps(PLAIN))


def page_calls(runs: list[dict], attention=("bahdanau", "luong", "luong_local"),
               bottleneck=("bahdanau",)) -> list[Call]:
    """The page's calls on every dataset: each attention arm vs plain (BLEU), beam vs
    greedy for every arm (BLEU), and the bottleneck call for ``bottleneck`` arms;
    Holm's correction over all of them (``survives_holm``)."""
    calls = []
    for dataset in sorted({r["dataset"] for r in runs}):
        models = {r["model"] for r in runs if r["dataset"] == dataset}
        for m in attention:
            if m in models and PLAIN in models:
                calls.append(paired_call(f"{m} beats plain", dataset, "BLEU",
                                         by_seed(runs, dataset, m),
                                         by_seed(runs, dataset, PLAIN)))
        for m in sorted(models):
            calls.append(paired_call(f"beam beats greedy ({m})", dataset, "BLEU",
                                     by_seed(runs, dataset, m, "bleu_beam"),
                                     by_seed(runs, dataset, m)))
        for m in bottleneck:
            if m in models and PLAIN in models:
                calls.append(bottleneck_call(runs, dataset, m))
    return holm_calls(calls)


def holm_calls(calls: list[Call]) -> list[Call]:
    """Mark which judged calls survive Holm's correction over all of them."""
    judged = {i: c.verdict.p for i, c in enumerate(calls) if c.verdict.judged}
    kept = holm(judged)
    for i, c in enumerate(calls):
        c.survives_holm = bool(kept.get(i, False))
    return calls


def calls_table(calls: list[Call]) -> pd.DataFrame:
    """The calls as the page prints them."""
    return pd.DataFrame([{"dataset": c.dataset, "call": c.name, "measure": c.what,
                          "seeds": len(c.diffs), "difference [95 % CI], p":
                          c.verdict.interval(2), "verdict": str(c.verdict),
                          "survives Holm": "yes" if c.survives_holm else "no"}
                         for c in calls])


def length_curve(runs: list[dict]) -> pd.DataFrame:
    """BLEU by source-length bucket: one row per (dataset, model, seed, bucket)."""
    rows = []
    for r in runs:
        for b in r["bleu_by_length"]:
            label = f"{b['low']}-{b['high']}" if b["high"] < 99 else f"{b['low']}+"
            rows.append({"dataset": r["dataset"], "model": r["model"],
                         "seed": r["config"]["seed"], "source length": label,
                         "low": b["low"], "sentences": b["n"], "BLEU": b["bleu"]})
    return pd.DataFrame(rows)


__all__ = ["Call", "bottleneck_call", "by_seed", "calls_table", "holm_calls",
           "interval", "length_curve", "load_seq2seq_runs", "page_calls",
           "paired_call", "score_table"]
