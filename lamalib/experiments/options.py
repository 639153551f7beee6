"""The values of ``--set key=value``, checked before any data is read (chapter
"Reproductions"): each is parsed by the type of its field (``TrainConfig``,
``RunSpec``, the model's defaults, ``load_splits``' options) and a small table of
ranges. A bad value is one line that names the option and what it takes, exit code 2.
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from types import NoneType, UnionType

from lamalib.data.table import TEXT_SEP, load_splits
from lamalib.experiments.spec import RunSpec
from lamalib.train import TrainConfig


# the options of load_splits that --set takes (run) and evaluate reads a file with
FILE_KEYS = ["header", "text_col", "label_col", "format", "delimiter", "encoding",
             "text_sep"]


class UsageError(SystemExit):
    """An error in the command's input: ``python -m lamalib.experiments`` prints its
    one-line message on stderr and exits with code 2 (what argparse uses)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.code = 2


@dataclass(frozen=True)
class Limit:
    """Where a number must lie: ``low <= x`` (``low < x`` when ``open_low``) and
    ``x < high``."""

    low: float | None = None
    open_low: bool = False
    high: float | None = None

    def holds(self, x) -> bool:
        if self.low is not None and (x <= self.low if self.open_low else x < self.low):
            return False
        return self.high is None or x < self.high

    def words(self) -> str:
        if self.low is not None and self.high is not None:
            return f" in {'(' if self.open_low else '['}{self.low:g}, {self.high:g})"
        if self.low is not None:
            return f" {'>' if self.open_low else '>='} {self.low:g}"
        return ""


COUNT = Limit(1)  # sizes, epochs, patience: a whole number >= 1
POSITIVE = Limit(0, open_low=True)
FRACTION = Limit(0, high=1)  # dropout, momentum, betas
NONNEGATIVE = Limit(0)
# The ranges, by option name (wherever the option belongs). An int option not listed
# takes any whole number >= 0, a float option any number.
LIMITS = {
    **dict.fromkeys(
        ["epochs", "patience", "batch_size", "eval_batch_size", "max_len", "min_freq",
         "word2vec_min_count", "word2vec_epochs", "embed_dim", "d_model", "d_ff", "d_a",
         "depth", "filters", "hidden_size", "hops", "mlp_hidden", "mlp_size",
         "n_heads", "n_layers", "max_positions", "heads", "hidden", "rank",
         "intermediate", "kernel_sizes"], COUNT),
    **dict.fromkeys(["lr", "eps", "clip_grad", "timeout"], POSITIVE),
    **dict.fromkeys(["dropout", "momentum", "betas", "stop_after_rise"], FRACTION),
    **dict.fromkeys(["weight_decay", "warmup_steps", "penalty"], NONNEGATIVE),
    "test_fraction": Limit(0, open_low=True, high=1),
}


def _choices() -> dict[str, list[str]]:
    from lamalib.train.optim import OPTIMIZERS
    from lamalib.train.schedule import SCHEDULES

    from lamalib.train.loop import SELECT

    return {"optimizer": list(OPTIMIZERS), "schedule": list(SCHEDULES),
            "format": ["csv", "tsv"], "select": list(SELECT),
            "class_weights": ["balanced"]}


class _Bad(ValueError):
    """The value does not fit; the message says what the option takes."""


def _whole(raw: str, limit: Limit) -> int:
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not limit.holds(value):
        raise _Bad(f"a whole number{limit.words() or ' >= 0'}")
    return value


def _number(raw: str, limit: Limit) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = None
    if value is not None and math.isinf(value):
        raise _Bad(f"a finite number{limit.words()}")
    if value is None or value != value or not limit.holds(value):  # NaN: never
        raise _Bad(f"a number{limit.words()}")
    return value


def _boolean(raw: str) -> bool:
    words = {"true": True, "false": False}
    if raw.strip().lower() not in words:
        raise _Bad("true or false")
    return words[raw.strip().lower()]


def _items(raw: str) -> list[str]:
    """``3,4,5`` or ``[3, 4, 5]``: the items as text."""
    raw = raw.strip()
    if raw.startswith("["):
        try:
            return [str(x) for x in json.loads(raw)]
        except ValueError:
            raise _Bad("a list such as 3,4,5") from None
    return [x.strip() for x in raw.split(",")]


def _column(raw: str) -> int | str:
    raw = raw.strip()
    if raw.lstrip("-").isdigit():
        return _whole(raw, NONNEGATIVE)
    if not raw:
        raise _Bad("a column name or a 0-based column number")
    return raw


def _columns(raw: str) -> int | str | list:
    """One column, or several joined (``1,2`` or ``title,description``)."""
    parts = _items(raw)
    if len(parts) == 1:
        return _column(parts[0])
    try:
        return [_column(p) for p in parts]
    except _Bad:
        raise _Bad("a column name or number, or several separated by commas "
                   "(e.g. 1,2 or title,description)") from None


def _delimiter(raw: str) -> str:
    value = {"tab": "\t", "\\t": "\t"}.get(raw, raw)
    if len(value) != 1:
        raise _Bad("one character, e.g. ';' (or tab)")
    return value


def _encoding(raw: str) -> str:
    try:
        codecs.lookup(raw)
    except LookupError:
        raise _Bad("a text encoding Python knows, e.g. utf-8 or cp1252") from None
    return raw


def _tokenizer(raw: str) -> str:
    """A tokenizer name whose segmenter is installed (lamalib.data.vietnamese)."""
    from lamalib.data.vietnamese import TOKENIZERS, MissingSegmenter, segmenter_package

    if raw not in TOKENIZERS:
        raise _Bad(f"one of {', '.join(TOKENIZERS)}")
    try:
        segmenter_package(raw)
    except MissingSegmenter as missing:
        raise UsageError(f"--set {missing}") from None
    return raw


SPECIAL = {"text_col": _columns, "label_col": _column, "delimiter": _delimiter,
           "encoding": _encoding, "tokenizer": _tokenizer}


def _by_type(key: str, kind, raw: str):
    """Parse ``raw`` as a value of the type ``kind`` (a field's annotation)."""
    args = typing.get_args(kind)
    if isinstance(kind, UnionType) or typing.get_origin(kind) is typing.Union:
        if NoneType in args and raw.strip().lower() in ("none", "null"):
            return None
        inner = [a for a in args if a is not NoneType]
        try:
            return _by_type(key, inner[0], raw)
        except _Bad as bad:
            raise _Bad(f"{bad} or none") from None
    limit = LIMITS.get(key, Limit())
    if kind is bool:
        return _boolean(raw)
    if kind is int:
        return _whole(raw, LIMITS.get(key, NONNEGATIVE))
    if kind is float:
        return _number(raw, limit)
    if typing.get_origin(kind) in (tuple, list) or kind in (tuple, list):
        item = (args or (float,))[0]
        try:
            return [_by_type(key, item, x) for x in _items(raw)]
        except _Bad:
            what = "whole numbers" if item is int else "numbers"
            example = "3,4,5" if item is int else "0.9,0.98"
            raise _Bad(f"{what}{limit.words()} separated by commas, e.g. {example}"
                       ) from None
    choices = _choices().get(key)
    if choices and raw not in choices:
        raise _Bad(f"one of {', '.join(choices)}")
    return raw


def _model_type(default):
    """The type of a model option, from its default (None: not known)."""
    if isinstance(default, (tuple, list)) and default:
        return list[type(default[0])]
    return None if default is None else type(default)


def option_types(model_defaults: dict) -> dict:
    """Every ``--set`` key's type: the run spec's, TrainConfig's, the model's and the
    file options' (those of :func:`load_splits`)."""
    # later sections win, as apply_settings routes a key: run, training, model, file
    return {**typing.get_type_hints(load_splits),
            **{k: _model_type(v) for k, v in model_defaults.items()},
            **typing.get_type_hints(TrainConfig), **typing.get_type_hints(RunSpec)}


def parse_value(key: str, raw: str, kind) -> object:
    """``raw`` as the value of option ``key`` of type ``kind``; UsageError if it does
    not fit (a key of unknown type: JSON, or the text itself)."""
    try:
        if key in SPECIAL:
            return SPECIAL[key](raw)
        if kind is None:
            if raw.strip().lower() in ("none", "null"):
                return None
            if key in LIMITS:  # a size whose default is None (e.g. max_positions)
                return _whole(raw, LIMITS[key])
            try:
                return json.loads(raw)
            except ValueError:
                return raw
        if raw.strip() == "null" and kind is str:  # e.g. pretrained_name=null
            return None
        return _by_type(key, kind, raw)
    except _Bad as bad:
        raise UsageError(f"--set {key}={raw}: {key} takes {bad}") from None


def check_count(option: str, value: int) -> int:
    """A count such as ``--seeds``: a whole number >= 1."""
    if value < 1:
        raise UsageError(f"{option} {value}: {option} takes a whole number >= 1")
    return value


def check_input_file(option: str, name: str | None) -> None:
    """A data file given on the command line exists, is a file and can be read."""
    if name is None:
        return
    path = Path(name).expanduser()
    if path.is_dir():
        raise UsageError(f"{option} {name}: is a folder; give the data file in it, "
                         f"e.g. {option} {Path(name) / 'train.tsv'}")
    if not path.exists():
        raise UsageError(f"{option} {name}: no such file; check the path (relative "
                         f"to {Path.cwd().name or '/'}/, where the command runs)")
    if not path.is_file():
        raise UsageError(f"{option} {name}: not a regular file (a device, a pipe or a "
                         "socket); give a data file")
    if not os.access(path, os.R_OK):
        raise UsageError(f"{option} {name}: cannot be read; check its permissions "
                         f"(chmod u+r {name})")


def read_only(path: Path) -> bool:
    """Whether ``path`` lies on a file system mounted read-only (where no chmod
    helps)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows): not known to be
        return False


def _writable_base(option: str, name: str, path: Path) -> None:
    """The first folder that exists on the way to ``path`` is a folder this process
    may write into (no file stands in the way)."""
    base = path
    while not base.exists() and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise UsageError(f"{option} {name}: {base} is a file, not a folder; give a "
                         "path in a folder")
    if read_only(base):
        raise UsageError(f"{option} {name}: {base} is on a read-only file system; "
                         "give a folder on a writable one")
    if not os.access(base, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {name}: {base} is not writable; give a folder "
                         f"you can write to (or chmod u+w {base})")


def check_output_folder(option: str, name: str | None) -> None:
    """A folder a command writes into (made where missing) can be made and written,
    checked before any data is read, so no run is trained and then lost."""
    if name is None:
        return
    path = Path(name).expanduser()
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {name}: {name} is a file; give a folder")
    _writable_base(option, name, path)


def check_output_file(option: str, name: str | None) -> None:
    """A file a command writes, in a folder that exists: not a folder, writable."""
    if name is None:
        return
    path = Path(name).expanduser()
    if path.is_dir():
        raise UsageError(f"{option} {name}: a folder; give a file name, e.g. "
                         f"{Path(name) / 'out.html'}")
    if path.exists() and not path.is_file():
        return  # a device such as /dev/null: written as it is
    _writable_base(option, name, path.parent)
    if not path.parent.is_dir():
        raise UsageError(f"{option} {name}: the folder {path.parent} does not exist; "
                         "make it first or write the file elsewhere")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {name}: is not writable; give another file (or "
                         f"chmod u+w {name})")


def check_model_folder(name: str | None, force: bool) -> None:
    """``--save-model DIR`` never replaces a saved model (or other files) unless
    ``--force``: said before any data is read."""
    if name is None or force:
        return
    path = Path(name).expanduser()
    if path.is_dir() and any(path.iterdir()):
        what = ("a saved model" if (path / "model.json").is_file()
                else "other files")
        raise UsageError(f"--save-model {name}: already holds {what}; give another "
                         "folder, or add --force to replace it")


def with_text_sep(fields: dict) -> dict:
    """Several text columns: the separator that joins them goes into the run's file
    options, so that its results file records it."""
    options = fields.get("file_options") or {}
    if isinstance(options.get("text_col"), list) and "text_sep" not in options:
        fields["file_options"] = {**options, "text_sep": TEXT_SEP}
    return fields


def in_command_words(message: str, keys: list[str]) -> str:
    """A library message's keyword arguments as the command takes them:
    ``encoding='latin-1'`` -> ``--set encoding=latin-1``, ``header=True`` -> ``--set
    header=true`` (only for ``keys``; ``text_col=[]`` stays as it is)."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, keys))
                         + r")=(?!\[)(?:'([^']*)'|(\w+))?")

    def words(m: re.Match) -> str:
        value = m[2] if m[2] is not None else m[3]
        if value is None:
            return f"--set {m[1]}=..."
        if value in ("True", "False"):
            value = value.lower()
        if not re.fullmatch(r"[\w.-]+", value):
            value = f"'{value}'"  # as a shell needs it, e.g. --set delimiter=';'
        return f"--set {m[1]}={value}"

    return pattern.sub(words, message)



# Optional packages and the extra of lamalib that installs each (pyproject.toml).
EXTRAS = {"transformers": "bert", "jupyter_book": "book", "selenium": "test",
          "pytest": "test", "nbval": "test"}


def missing_dependency(module: str | None) -> str:
    """One line for a package this command needs and the install lacks, naming the
    extra that installs it."""
    top = (module or "").split(".")[0]
    extra = EXTRAS.get(top)
    if extra is None:
        return (f"this command needs the Python package {top!r}, which is not "
                f"installed: pip install {top}")
    return (f"this command needs the Python package {top!r}, which the library "
            f"alone does not install: pip install 'lamalib[{extra}]' (in a clone: "
            f"pip install -e '.[{extra}]')")
