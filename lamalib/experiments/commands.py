"""Parts of ``python -m lamalib.experiments``: ``run --name`` and ``--recipe``, the
``report`` table that fits a terminal, and the ``models`` listing (chapter
"Reproductions")."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lamalib.experiments.options import UsageError
from lamalib.experiments.papers import PAPERS, paper_spec_fields
from lamalib.experiments.results import (course_results_dir, is_course_dir,
                                         load_published, load_results, results_table,
                                         run_recipe)
from lamalib.experiments.spec import RunSpec, check_name
from lamalib.train import TrainConfig

WIDTH = 100  # the report's and the model listing's lines fit this many columns
# report: the columns kept when the full table is too wide, in this order
ESSENTIAL = ["model", "dataset", "recipe", "runs", "accuracy", "seeds", "paper"]
DROPPED_FIRST = ["paper_source", "device", "profile", "experiment", "sec_per_epoch",
                 "epochs", "min_recall"]


def run_name_fields(args) -> dict:
    """``run --name NAME`` and ``--recipe PAPER`` as RunSpec fields, checked."""
    fields = {}
    if args.name is not None:
        try:
            fields["name"] = check_name(args.name)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if args.recipe:
        fields["recipe"] = args.recipe
    return fields


def recipe_fields(recipe: str, model: str, dataset: str) -> dict:
    """The RunSpec fields of ``run --recipe``: the paper's settings for ``model``,
    still a "run" on the given data. A model the paper does not have is an error
    naming the paper's models."""
    paper = PAPERS[recipe]
    if model not in paper.models:
        raise UsageError(
            f"--recipe {recipe} covers the models of {paper.title.split(',')[0]}: "
            f"{', '.join(paper.models)}; {model!r} is not one of them (run it without "
            "--recipe, and set what you need with --set)")
    fields = paper_spec_fields(paper, model, dataset)
    del fields["experiment"]
    return {**fields, "recipe": recipe}


def recipes_epilog() -> str:
    """``run --help``: the defaults, and what each recipe sets and for which models."""
    c, spec = TrainConfig(), RunSpec()
    lines = [f"defaults: epochs {c.epochs}, patience {c.patience}, {c.optimizer} lr "
             f"{c.lr:g}, batch size {spec.batch_size}, embeddings {spec.embeddings}, "
             "the model's own option defaults (`models` lists them)."]
    for name in sorted(PAPERS):
        paper = PAPERS[name]
        r = paper.recipe
        lr = (", ".join(f"{m} {t['lr']:g}" for m, t in paper.tuned.items()
                        if "lr" in t) + " (chosen on validation), others "
              if paper.tuned else "")
        vectors = ("random embeddings for every model" if paper.embeddings == "random"
                   else "word2vec embeddings")
        lines.append(
            f"--recipe {name}: {paper.title.split(',')[0]}'s settings: epochs "
            f"{r.get('epochs', c.epochs)}, patience {r.get('patience', c.patience)}"
            + (f" (counted once training accuracy rose {r['stop_after_rise']:g})"
               if r.get("stop_after_rise") else "") + ", "
            f"{r.get('optimizer', c.optimizer)} lr {lr}{r.get('lr', c.lr):g}, batch "
            f"size {spec.batch_size}, vocabulary min count {paper.min_freq}, {vectors} "
            "and the paper's sizes (some models bring their own optimizer: "
            "lamalib/experiments/papers.py); only for its models: "
            f"{', '.join(paper.models)}.")
    lines.append("A --recipe run's results file is run-<recipe>__<model>__<name>__s<seed>"
                 ".json, apart from the default run's run__<model>__<name>__s<seed>.json.")
    return "\n".join(textwrap.fill(line, WIDTH - 2, subsequent_indent="  ")
                     for line in lines)


def _fit(table, width: int):
    """Drop the columns that are not essential, then shorten long cells, until every
    line of the table is at most ``width`` characters."""
    def too_wide(t):
        return max(len(line) for line in t.to_string(index=False).splitlines()) > width

    for column in DROPPED_FIRST:
        if not too_wide(table):
            return table
        table = table.drop(columns=[column], errors="ignore")
    for cap in (40, 30, 24, 18, 12):
        if not too_wide(table):
            break
        table = table.apply(lambda col: col.map(
            lambda v: v if not isinstance(v, str) or len(v) <= cap
            else v[:cap - 1] + "…"))
    return table


def class_columns(table, folder: Path, paper: str | None):
    """``table`` (a results table of ``folder``) with two columns per row, from the
    same runs: ``macro_f1`` (points, mean over the seeds whose file has it) and
    ``min_recall`` (the class whose recall, averaged over those seeds, is lowest,
    e.g. ``neutral 24``); "—" for runs made before results files kept them."""
    if table.empty:
        return table
    groups: dict[tuple, list[dict]] = {}
    for r in load_results(folder):
        if paper is None or r["experiment"] == paper:
            if "test_macro_f1" in r["metrics"]:
                key = (r["experiment"], r["model"], r["dataset"], run_recipe(r))
                groups.setdefault(key, []).append(r["metrics"])
    f1s, lows = [], []
    for row in table.to_dict("records"):
        key = (row.get("experiment"), row["model"], row["dataset"],
               row.get("recipe", paper or ""))
        group = groups.get(key, [])
        if not group:
            f1s.append("—")
            lows.append("—")
            continue
        f1s.append(f"{100 * sum(m['test_macro_f1'] for m in group) / len(group):.1f}")
        recalls: dict[str, list[float]] = {}
        for m in group:
            for label, c in m["test_per_class"].items():
                if c["support"]:
                    recalls.setdefault(label, []).append(c["recall"])
        mean = {label: sum(v) / len(v) for label, v in recalls.items()}
        label = min(mean, key=mean.get)
        lows.append(f"{label} {100 * mean[label]:.0f}")
    at = list(table.columns).index("ours") + 1
    table.insert(at, "macro_f1", f1s)
    table.insert(at + 1, "min_recall", lows)
    return table


def report_table(folder: Path, paper: str | None, grid, with_course: bool = True):
    """``results_table`` of your runs in ``folder`` and of the course's committed runs,
    one row per group of runs, its ``runs`` column saying whose (``yours``,
    ``course``); the course's row comes first. A cell of ``grid`` that neither has
    run is one row "not run"."""
    import pandas as pd

    published = load_published(None)
    own = class_columns(results_table(folder, paper, grid, published=published),
                        folder, paper)
    course_dir = course_results_dir() if with_course else None
    if is_course_dir(folder):  # a maintainer's --results results: the course's runs
        own, course_dir = own.assign(runs="course"), None
    else:
        own = own.assign(runs="yours")
    if course_dir is not None:
        course = class_columns(results_table(course_dir, paper, published=published),
                               course_dir, paper)
        if not course.empty and not own.empty:  # "not run" only where neither ran
            ran = set(zip(course["model"], course["dataset"]))
            done = [k in ran for k in zip(own["model"], own["dataset"])]
            own = own[~((own["ours"] == "not run").to_numpy() & done)]
        frames = [t for t in (course.assign(runs="course"), own) if not t.empty]
        own = pd.concat(frames, ignore_index=True) if frames else own
    if own.empty:
        return own
    own.loc[own["ours"] == "not run", "runs"] = "—"  # no one's
    keys = [c for c in ("experiment", "model", "dataset", "recipe") if c in own]
    own = own.sort_values(keys, kind="stable").reset_index(drop=True)
    columns = list(own.columns)
    columns.remove("runs")
    columns.insert(columns.index("ours"), "runs")
    return own[columns].rename(columns={"ours": "accuracy"})


def cmd_report(args, argv) -> None:
    """``report``: your results and the course's, each beside the paper's figure, in
    lines of at most 100 columns (``--wide``: every column). The published figures
    are the package's."""
    grid = None
    if args.paper:
        paper = PAPERS[args.paper]
        grid = [(m, d) for d in paper.datasets for m in paper.models]
    table = report_table(Path(args.results), args.paper, grid,
                         with_course=not args.no_course)
    if table.empty:
        print(f"no results in {args.results}")
        return
    if "recipe" in table:
        table["recipe"] = table["recipe"].replace("", "—")
    else:  # one paper's grid
        table.insert(table.columns.get_loc("dataset") + 1, "recipe", args.paper)
    if args.markdown:
        print(table.to_markdown(index=False))
        return
    if not args.wide:
        table = _fit(table, WIDTH)
    print(table.to_string(index=False))


def add_report_command(sub, common) -> None:
    t = sub.add_parser("report", parents=[common],
                       help="your results and the course's, mean ± std over seeds, "
                            "beside the paper")
    t.add_argument("--paper", choices=sorted(PAPERS), help="only this paper's grid")
    t.add_argument("--markdown", action="store_true", help="print a Markdown table")
    t.add_argument("--no-course", action="store_true",
                   help="leave out the course's own runs (the rows whose runs column "
                        "says course: results/ of the repository)")
    t.add_argument("--wide", action="store_true",
                   help="every column (profile, device, epochs, seconds per epoch, "
                        "the figure's source), however wide")
    t.set_defaults(func=cmd_report)


def _wrap_items(items: list[str], width: int, indent: str) -> list[str]:
    lines, line = [], indent
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line.strip() and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = indent
        line += (" " if line.strip() else "") + piece
    return lines + [line] if line.strip() else lines


def cmd_models(args, argv) -> None:
    """``models``: every registered model, its kind and its options with defaults."""
    from lamalib.models import available_models, describe_models, model_options
    from lamalib.models.registry import DATA_OPTIONS

    for row in describe_models():
        name = row["name"]
        print(f"{name} ({row['kind']})")
        options = model_options(name)
        items = [k if v == "required" else f"{k}={v!r}" for k, v in options.items()
                 if k not in DATA_OPTIONS or name not in available_models("classifier")]
        print("\n".join(_wrap_items(items, WIDTH, "    ")) or "    (no options)")
    print("\nSet an option with `run --model NAME --set KEY=VALUE`; vocab_size, "
          "num_classes\nand pretrained come from the data and --set embeddings.")


def add_models_command(sub) -> None:
    m = sub.add_parser("models", help="every registered model with its options and "
                                      "their defaults")
    m.set_defaults(func=cmd_models)


__all__ = ["add_models_command", "add_report_command", "cmd_report", "recipe_fields",
           "recipes_epilog", "report_table", "run_name_fields"]
