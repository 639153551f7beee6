"""``evaluate --model DIR --test FILE``: a saved model (``run --save-model``) on a
labelled file: accuracy, each class's precision, recall, F1 and support, and the
confusion matrix (chapter "Reproductions"; README "Use a trained model")."""

from __future__ import annotations

import typing
from pathlib import Path

from lamalib.data.table import load_table
from lamalib.experiments.options import (FILE_KEYS, UsageError, check_input_file,
                                         check_output_file, parse_value)

if typing.TYPE_CHECKING:  # the metrics import torch: the evaluation imports them
    from lamalib.train.metrics import ClassReport

BATCH = 256  # texts per forward pass


def file_options(settings: list[str]) -> dict:
    """``--set KEY=VALUE`` of ``evaluate``: the options a labelled file is read with
    (header, text_col, ...), each checked as ``run`` checks it."""
    types = typing.get_type_hints(load_table)
    options = {}
    for item in settings:
        key, eq, raw = item.partition("=")
        if not eq:
            raise UsageError(f"--set takes key=value, got {item!r}")
        if key not in FILE_KEYS:
            raise UsageError(f"--set {key}: evaluate takes the file options "
                             f"{', '.join(FILE_KEYS)}")
        options[key] = parse_value(key, raw, types.get(key))
    return options


def with_model_format(given: dict, kept: dict) -> dict:
    """The options a file is read with: those the model's training files were read
    with (model.json's ``input``), then the ones given; each given one that differs
    from the model's is said in one line on stderr."""
    import sys

    for key, value in given.items():
        if key in kept and kept[key] != value:
            print(f"note: --set {key}={_shown(value)} differs from how the model's "
                  f"training files were read ({key}={_shown(kept[key])}); the file "
                  f"is read with {key}={_shown(value)}", file=sys.stderr)
    return {**{k: v for k, v in kept.items() if k in FILE_KEYS}, **given}


def _shown(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(map(str, value))
    return "none" if value is None else str(value)


def predicted_ids(saved, texts: list[str]) -> list[int]:
    """The most probable label id of each text, a batch at a time."""
    ids = []
    for start in range(0, len(texts), BATCH):
        ids += saved.logits(texts[start:start + BATCH]).argmax(-1).tolist()
    return ids


# the image formats matplotlib writes (by the file's suffix)
FIGURE_SUFFIXES = ("png", "pdf", "svg", "svgz", "jpg", "jpeg", "eps", "ps", "tif",
                   "tiff", "webp", "pgf")


def check_figure_suffix(name: str | None) -> None:
    """``--figure FILE``: a suffix matplotlib writes, checked before the evaluation."""
    if name is None:
        return
    suffix = Path(name).suffix.lower().lstrip(".")
    if suffix not in FIGURE_SUFFIXES:
        raise UsageError(f"--figure {name}: "
                         + (f"'.{suffix}' is not an image format" if suffix
                            else "no suffix to tell the image format")
                         + "; end the name in .png (or ."
                         + ", .".join(FIGURE_SUFFIXES[1:6]) + ", ...)")


def report_lines(report: ClassReport) -> list[str]:
    """The per-class table as TSV lines: label, precision, recall, f1, support."""
    lines = ["label\tprecision\trecall\tf1\tsupport"]
    for r in report.rows:
        lines.append(f"{r['label']}\t{r['precision']:.4f}\t{r['recall']:.4f}\t"
                     f"{r['f1']:.4f}\t{r['support']}")
    return lines


def confusion_figure(report: ClassReport, path: Path, title: str) -> None:
    """The confusion matrix as an image: gold classes down, predicted across, each
    cell's count written in it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = report.confusion.numpy()
    n = len(report.labels)
    fig, ax = plt.subplots(figsize=(2 + 0.6 * n, 1.6 + 0.6 * n))
    ax.imshow(counts, cmap="Blues")
    ax.set_xticks(range(n), report.labels, rotation=45, ha="right")
    ax.set_yticks(range(n), report.labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    ax.set_title(title, fontsize=9)
    high = counts.max() / 2
    for i in range(n):
        for j in range(n):
            ax.text(j, i, str(counts[i, j]), ha="center", va="center",
                    color="white" if counts[i, j] > high else "black")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as error:
        raise UsageError(f"--figure {path}: cannot write it ({error.strerror})"
                         ) from None
    finally:
        plt.close(fig)


def cmd_evaluate(args, argv) -> None:
    from lamalib.models.saved import load_model

    check_input_file("--test", args.test)
    check_output_file("--out", args.out)
    check_output_file("--figure", args.figure)
    check_figure_suffix(args.figure)
    options = file_options(args.set or [])
    saved = load_model(args.model)
    options = with_model_format(options, saved.config.get("input") or {})
    if saved.pairs:
        raise UsageError(f"--model {args.model}: a sentence-pair model; evaluate "
                         "reads one text per row (evaluate the pair model in Python: "
                         "load_model(DIR).predict(pairs))")
    try:
        test = load_table(args.test, label_names=saved.labels,
                          labels_of=f"the model {args.model}", **options)
    except ValueError as error:  # a row or a label of the file: its line
        raise UsageError(str(error)) from None
    from lamalib.train.metrics import class_report

    report = class_report(test.labels, predicted_ids(saved, test.texts), saved.labels)
    print(f"# {saved.name} ({args.model}) on {args.test}: {len(test)} examples")
    print(f"accuracy\t{report.accuracy:.4f}\n")
    lines = report_lines(report)
    print("\n".join(lines))
    macro = [report.macro(k) for k in ("precision", "recall", "f1")]
    print("macro avg\t" + "\t".join(f"{v:.4f}" for v in macro) + f"\t{len(test)}")
    print("\nconfusion matrix (rows: gold, columns: predicted)")
    print("\t".join(["gold \\ predicted", *report.labels]))
    for label, row in zip(report.labels, report.confusion.tolist()):
        print("\t".join([label, *map(str, row)]))
    if args.out:
        try:
            Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
        except OSError as error:
            raise UsageError(f"--out {args.out}: cannot write it ({error.strerror})"
                             ) from None
        print(f"per-class table written to {args.out}")
    if args.figure:
        confusion_figure(report, Path(args.figure),
                         f"{saved.name} on {Path(args.test).name}: accuracy "
                         f"{report.accuracy:.3f}")
        print(f"confusion matrix written to {args.figure}")


def add_evaluate_command(sub) -> None:
    e = sub.add_parser("evaluate", help="a saved model on a labelled file: accuracy, "
                                        "per-class precision/recall/F1, confusion")
    e.add_argument("--model", required=True, metavar="DIR",
                   help="a folder written by run --save-model")
    e.add_argument("--test", required=True, metavar="FILE",
                   help="a labelled TSV/CSV file, read as run reads --test (its "
                        "labels must be the model's)")
    e.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help=f"a file option: {', '.join(FILE_KEYS)} (e.g. header=false)")
    e.add_argument("--out", metavar="FILE.tsv",
                   help="also write the per-class table (TSV) to this file")
    e.add_argument("--figure", metavar="FILE.png",
                   help="also draw the confusion matrix into this image")
    e.set_defaults(func=cmd_evaluate)
