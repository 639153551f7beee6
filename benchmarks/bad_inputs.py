"""Every bad input of issue 61 and of the run-integrity issue before it (52), given to
``python -m lamalib.experiments`` as a user would, each in a fresh process in its own
folder of a temporary directory (quick profile, tiny files, tiny models, one epoch
where a run trains). Per case: the command, the exit code, how many lines it wrote on
stderr, whether a traceback appeared, the first stderr line, and what it left behind
or lost (files added, changed or removed in the case's folder: a results file, a
half-written model, a saved model overwritten), judged against the outcome the issues
ask for (a bad file that comes in many forms, random bytes as weights, is tried as
several files, and its row counts how many of them were clean):

- refused: exit 2, one line ``error: ...``, no traceback, nothing written, nothing lost;
- handled: exit 0, no traceback, the input read as meant (a check per case: the
  sizes or labels in the results file, a note or warning of one line, ...);
- usage: exit 2 with the subcommand's usage (argparse's own error);
- interrupted: Ctrl-C gives exit 130 and one line.

Three kinds of case need the operating system's help and are skipped where it is not
given: a folder the user may not write (as root: the command runs as ``nobody`` with
``setpriv``), a read-only mount and a full disk (a private mount namespace with
``unshare -m``: a read-only bind mount, a full 64 KiB tmpfs). The missing optional
package (``transformers``) is simulated as its test does: the module set to None
before the command runs. Each case names the test that covers it.

    OMP_NUM_THREADS=1 python benchmarks/bad_inputs.py [--only NAME ...] [--keep]

Prints a markdown table and writes ``results/benchmark__bad_inputs.json`` (no folder
of this machine in it: every path is relative to the case's folder).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import fnmatch
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from labelled_files import write_tsv  # noqa: E402  (the tests' labelled TSV)

PROGRAM = "python -m lamalib.experiments"
NOBODY = 65534


# ---- running a command -------------------------------------------------------------

@dataclasses.dataclass
class Done:
    rc: int
    out: str
    err: str
    rss_mb: float
    seconds: float
    listing: list[str] = dataclasses.field(default_factory=list)  # a private mount's

    @property
    def lines(self) -> list[str]:
        return self.err.strip().splitlines()


class Env:
    """The temporary root, the environment of every command, what the system allows."""

    def __init__(self, root: Path):
        self.root = root
        self.logs = root / "_logs"
        self.logs.mkdir()
        self.home = root / "_home"  # HOME of a command run as nobody
        self.home.mkdir()
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("LAMALIB_")}
        self.env.update(PYTHONPATH=str(ROOT), LAMALIB_PROFILE="quick",
                        LAMALIB_PROGRESS="0", OMP_NUM_THREADS="1",
                        PYTHONDONTWRITEBYTECODE="1")
        root_user = os.geteuid() == 0
        self.can_deny = not root_user or (shutil.which("setpriv") is not None)
        self.as_nobody = root_user
        if root_user:
            os.chown(self.home, NOBODY, NOBODY)
        self.can_mount = root_user and shutil.which("unshare") is not None and \
            subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0

    def command(self, argv: list[str], block: str | None = None) -> list[str]:
        if block:  # an optional package missing, as tests/test_bad_inputs_61.py does
            code = (f"import sys, runpy\nsys.modules[{block!r}] = None\n"
                    f"sys.argv = ['x', *{argv!r}]\n"
                    "runpy.run_module('lamalib.experiments', run_name='__main__')\n")
            return [sys.executable, "-c", code]
        return [sys.executable, "-m", "lamalib.experiments", *argv]

    def run(self, folder: Path, argv: list[str], *, block: str | None = None,
            wrap: str | None = None, interrupt: Callable[[], bool] | None = None,
            timeout: float = 180, log: str = "cmd") -> Done:
        command = self.command(argv, block)
        env = dict(self.env)
        listing = self.logs / f"{log}.listing"
        if wrap == "nobody":
            env["HOME"] = str(self.home)
            command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                       "--clear-groups", *command] if self.as_nobody else command
        elif wrap in ("read-only", "full"):
            target = folder / ("ro" if wrap == "read-only" else "full")
            if wrap == "read-only":
                mount = (f"mount --bind {shlex.quote(str(target))} "
                         f"{shlex.quote(str(target))} && mount -o remount,bind,ro "
                         f"{shlex.quote(str(target))}")
            else:
                mount = (f"mount -t tmpfs -o size=64k tmpfs {shlex.quote(str(target))}"
                         f" && (dd if=/dev/zero of={shlex.quote(str(target))}/.fill "
                         "bs=4k 2>/dev/null; true)")
            script = (f"{mount} || exit 99\n\"$@\"; rc=$?\n"
                      f"cd {shlex.quote(str(target))} && find . -mindepth 1 "
                      f"! -name .fill -printf '%y %P %s\\n' > {shlex.quote(str(listing))}"
                      "\nexit $rc")
            command = ["unshare", "-m", "sh", "-c", script, "sh", *command]
        out_path, err_path = self.logs / f"{log}.out", self.logs / f"{log}.err"
        start = time.perf_counter()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            child = subprocess.Popen(command, cwd=folder, env=env, stdout=out,
                                     stderr=err, stdin=subprocess.DEVNULL)
            sent = False
            while True:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    break
                if interrupt and not sent and interrupt():
                    child.send_signal(signal.SIGINT)  # Ctrl-C
                    sent = True
                if time.perf_counter() - start > timeout:
                    child.kill()
                time.sleep(0.02)
            child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        done = Done(child.returncode, out_path.read_text(errors="replace"),
                    err_path.read_text(errors="replace"), usage.ru_maxrss / 1024,
                    seconds)
        if listing.exists():
            done.listing = listing.read_text().split("\n")[:-1]
        return done


# ---- what a case left behind -------------------------------------------------------

def snapshot(folder: Path) -> dict[str, str]:
    """Every path under ``folder``: a file's SHA-256, a folder's ``dir``."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_dir():
            seen[rel + "/"] = "dir"
        elif path.is_file():
            seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


def difference(before: dict, after: dict) -> dict[str, list[str]]:
    return {"added": [p for p in after if p not in before],
            "changed": [p for p in after if p in before and after[p] != before[p]],
            "removed": [p for p in before if p not in after]}


def summary(paths: list[str], most: int = 3) -> str:
    """``paths`` as their first two levels, at most ``most`` of them."""
    tops = []
    for p in paths:
        top = "/".join(p.rstrip("/").split("/")[:2])
        if top not in tops:
            tops.append(top)
    text = ", ".join(tops[:most])
    return text + (f" (+{len(tops) - most})" if len(tops) > most else "")


# ---- the cases -----------------------------------------------------------------------

@dataclasses.dataclass
class Case:
    name: str
    source: str  # where the bad input is named: "61.3" = issue 61, item 3
    expect: str  # refused | handled | usage | interrupted | handled or refused
    # writes the inputs, gives the argv (or several: the same bad input in N files)
    setup: Callable[[Path, "Shared"], list]
    check: Callable[[Path, Done], list[str]] = lambda d, done: []
    test: str = ""  # the test that covers it
    wrap: str | None = None  # nobody | read-only | full
    block: str | None = None
    may_leave: tuple[str, ...] = ()  # added paths that are no fault (fnmatch)
    # given the case's folder and its stdout file: when to press Ctrl-C
    interrupt: Callable[[Path, Path], Callable[[], bool]] | None = None
    note: str = ""  # how the command is run, beside the plain command


class Shared:
    """Models and files several cases start from, trained once through the command."""

    def __init__(self, env: Env):
        self.folder = env.root / "_shared"
        self.folder.mkdir()
        d = self.folder
        write_tsv(d / "train.tsv", 40)
        write_tsv(d / "test.tsv", 10, 1000)
        rows = [line.split("\t") for line in (d / "train.tsv").read_text().splitlines()]
        three = "".join(f"{i}\t{y}\t{x}\n" for i, (y, x) in enumerate(rows))
        (d / "train3.tsv").write_text(three)
        (d / "test3.tsv").write_text("".join(three.splitlines(True)[:10]))
        for argv in (
                run_on("train.tsv", "test.tsv", "--save-model", "m"),
                run_on("train3.tsv", "test3.tsv", "--set", "label_col=1", "--set",
                       "text_col=2", "--save-model", "m3"),
                ["run", "--model", "self_attention", "--set", "header=false", "--set",
                 "epochs=1", "--set", "d_model=16", "--results", "r_sa", "--train",
                 "train.tsv", "--test", "test.tsv", "--save-model", "sa"]):
            done = env.run(d, argv, log="shared")
            if done.rc != 0:
                raise SystemExit(f"{PROGRAM} {shlex.join(argv)} failed: {done.err}")
        (result,) = (d / "r").glob("run__avg__train3__s0.json")
        self.m3_accuracy = json.loads(result.read_text())["metrics"]["test_accuracy"]

    def copy(self, name: str, into: Path, as_name: str | None = None) -> None:
        source = self.folder / name
        target = into / (as_name or name)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)


def files(d: Path, n: int = 40) -> tuple[Path, Path]:
    return write_tsv(d / "train.tsv", n), write_tsv(d / "test.tsv", 10, 1000)


def run_on(train: str = "train.tsv", test: str | None = "test.tsv", *more,
           results: str = "r") -> list:
    """``run --model avg`` for one epoch on ``train`` and ``test`` into ``results``."""
    return ["run", "--model", "avg", "--set", "header=false", "--set", "epochs=1",
            "--results", results, "--train", train, *(["--test", test] if test else []),
            *more]


def results(d: Path, folder: str = "r") -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((d / folder).glob("*.json"))]


def one_result(d: Path, folder: str = "r") -> tuple[dict | None, list[str]]:
    found = results(d, folder)
    if len(found) != 1:
        return None, [f"{len(found)} results files in {folder}/"]
    return found[0], []


def says(done: Done, *words: str, not_: tuple[str, ...] = ()) -> list[str]:
    first = done.lines[0] if done.lines else ""
    return ([f"the message lacks {w!r}" for w in words if w not in done.err]
            + [f"the message says {w!r}" for w in not_ if w in first])


# -- setups and checks, in the order of the table

def cr_only(d, s):
    for path in files(d):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r"))
    return run_on()


def sizes_are(train_valid: int, test: int, labels: list[str] | None = None):
    def check(d, done):
        result, problems = one_result(d)
        if result:
            sizes = result["dataset_identity"]["sizes"]
            if sizes["train"] + sizes["valid"] != train_valid or sizes["test"] != test:
                problems.append(f"read as {sizes} (the files hold {train_valid} and "
                                f"{test} rows)")
            names = result["dataset_identity"]["label_names"]
            if labels is not None and names != labels:
                problems.append(f"labels read as {names}, not {labels}")
        return problems
    return check


def utf16(bom: bool):
    def setup(d, s):
        train, _ = files(d)
        train.write_bytes(train.read_text().encode("utf-16" if bom else "utf-16-le"))
        return run_on()
    return setup


def stray_cp1252(d, s):
    """A UTF-8 file with Vietnamese words on every line, line 31 saved in cp1252."""
    train, _ = files(d)
    lines = [line + " phim dở".encode() for line in train.read_bytes().splitlines()]
    lines[30] = lines[30] + " café".encode("cp1252")
    train.write_bytes(b"\n".join(lines) + b"\n")
    return run_on()


def one_class(d, s):
    train, _ = files(d)
    train.write_text(re.sub(r"^neg\t", "pos\t", train.read_text(), flags=re.M))
    return run_on()


def numeric_labels(d, s):
    train, test = files(d)
    forms = iter(["1", "1.0", "01"] * 20)
    for path in (train, test):
        path.write_text(re.sub(r"^neg\t", lambda m: next(forms) + "\t",
                               path.read_text().replace("pos\t", "2\t"), flags=re.M))
    return run_on()


def nan_label(d, s):
    train, _ = files(d)
    lines = train.read_text().splitlines(True)
    lines[4] = "NaN\t" + lines[4].split("\t", 1)[1]  # line 5
    train.write_text("".join(lines))
    return run_on()


def predict_labelled(d, s):
    s.copy("m", d)
    s.copy("test.tsv", d)
    return ["predict", "--model", "m", "--file", "test.tsv"]


def three_columns(d, s):
    rows = [line.split("\t") for line in
            write_tsv(d / "rows.tsv", 50).read_text().splitlines()]
    (d / "rows.tsv").unlink()
    text = "".join(f"{y},{x},site{i % 3}\n" for i, (y, x) in enumerate(rows))
    header = "label,text,source\n"
    lines = text.splitlines(True)
    (d / "train.csv").write_text(header + "".join(lines[:40]))
    (d / "test.csv").write_text(header + "".join(lines[40:]))
    return ["run", "--model", "avg", "--set", "epochs=1", "--results", "r",
            "--train", "train.csv", "--test", "test.csv"]


def evaluate_bare(d, s):
    s.copy("m3", d)
    s.copy("test3.tsv", d)
    return ["evaluate", "--model", "m3", "--test", "test3.tsv"]


def accuracy_of_training():
    def check(d, done):
        s = SHARED
        found = re.search(r"^accuracy\t([\d.]+)", done.out, flags=re.M)
        if not found:
            return ["no accuracy printed"]
        if abs(float(found.group(1)) - s.m3_accuracy) > 1e-4:
            return [f"accuracy {found.group(1)}, the training run's test "
                    f"{s.m3_accuracy:.4f}"]
        return []
    return check


def save_onto_model(d, s):
    files(d)
    s.copy("m", d)
    return run_on("train.tsv", "test.tsv", "--save-model", "m")


def weights(kind: str, legacy: bool = False, files_: int = 1):
    """A saved model whose weights file is empty, random bytes or text; with
    ``files_`` > 1, that many models (m0, m1, ...), the random bytes seeded 0, 1, ..."""
    def setup(d, s):
        tries = []
        for k in range(files_):
            name = "m" if files_ == 1 else f"m{k}"
            s.copy("m", d, name)
            path = d / name / "weights.safetensors"
            if legacy:
                path.unlink()
                path = d / name / "weights.pt"
            rng = random.Random(k)
            path.write_bytes({"empty": b"",
                              "random": rng.randbytes(rng.randint(1, 8192)),
                              "text": b"this is not a model, just some text\n"}[kind])
            tries.append(["predict", "--model", name, "a warm film"])
        return tries if files_ > 1 else tries[0]
    return setup


def transformers_attention(d, s):
    return ["attention", "--model", "all-MiniLM-L6-v2", "a warm film"]


def transformers_run(d, s):
    files(d)
    return ["run", "--model", "bert", "--set", "header=false", "--set", "epochs=1",
            "--results", "r", "--train", "train.tsv", "--test", "test.tsv"]


def figure_txt(d, s):
    s.copy("m", d)
    s.copy("test.tsv", d)
    return ["evaluate", "--model", "m", "--test", "test.tsv", "--figure", "c.txt"]


def full_disk_model(d, s):
    files(d)
    (d / "full").mkdir()
    return run_on("train.tsv", "test.tsv", "--save-model", "full/m")


def full_disk_results(d, s):
    files(d)
    (d / "full").mkdir()
    return run_on(results="full/r")


def nothing_on_the_full_disk(d, done):
    """No file on the full disk (a folder the run made there is no harm)."""
    written = [line.split()[1] for line in done.listing if line.startswith("f ")]
    return [f"left on the full disk: {summary(written)}"] if written else []


def test_fraction(d, s):
    files(d)
    (d / "test.tsv").unlink()
    return run_on("train.tsv", None, "--set", "test_fraction=0.999")


def dev_null(d, s):
    files(d)
    return run_on("/dev/null", "test.tsv")


def read_only_mount(d, s):
    files(d)
    (d / "ro").mkdir()
    return run_on(results="ro/r")


def embeddings_missing(d, s):
    files(d)
    return run_on("train.tsv", "test.tsv", "--set", "embeddings=glove.txt")


def ctrl_c_predict(d, s):
    s.copy("m", d)
    rng = random.Random(0)
    words = "the film was dull boring awful great warm lovely number".split()
    with open(d / "big.txt", "w") as f:
        for _ in range(300_000):
            f.write(" ".join(rng.choices(words, k=8)) + "\n")
    return ["predict", "--model", "m", "--file", "big.txt"]


def after_rows(d, out):
    return lambda: out.exists() and out.stat().st_size > 20_000


def rows_whole(d, done):
    lines = done.out.split("\n")
    complete = all(line.count("\t") == 3 for line in lines[:-1])
    problems = [] if complete and lines[-1] == "" else ["a half-written row"]
    if len(lines) < 10:
        problems.append("no rows written before Ctrl-C")
    return problems + says(done, not_=("the same command goes on",))


def unwritable(option: str):
    def setup(d, s):
        files(d)
        (d / "ro").mkdir()
        os.chmod(d / "ro", 0o555)
        os.chmod(d, 0o777)  # nobody may write the case's own folder
        if option == "--results":
            return run_on(results="ro/r")
        (d / "r").mkdir()  # a results folder the user may write
        if ENV.as_nobody:
            os.chown(d / "r", NOBODY, NOBODY)
        return run_on("train.tsv", "test.tsv", option,
                      {"--save-model": "ro/m", "--checkpoints": "ro/c"}[option])
    return setup


def long_attention(d, s):
    s.copy("sa", d)
    rng = random.Random(0)
    words = "the film was dull boring awful great warm lovely number".split()
    text = " ".join(rng.choice(words) for _ in range(24_000))[:120_000]
    (d / "long.txt").write_text(text)
    return ["attention", "--model", "sa", "--file", "long.txt"]


def bounded(d, done):
    problems = [] if done.rss_mb < 2000 else [f"peak memory {done.rss_mb:.0f} MB"]
    if done.rc == 0 and len(done.lines) != 1:
        problems.append(f"{len(done.lines)} stderr lines, not one warning")
    return problems


def emoji(d, s):
    s.copy("m", d)
    return ["predict", "--model", "m", "😀😀😀"]


def blank_lines(d, s):
    s.copy("m", d)
    (d / "texts.txt").write_text("a warm film\n\na dull film\n\n\nlovely\n")
    return ["predict", "--model", "m", "--file", "texts.txt"]


def row_per_line(d, done):
    rows = done.out.strip("\n").split("\n")[1:]
    return [] if len(rows) == 6 else [f"{len(rows)} rows for 6 lines"]


def swapped(d, s):
    train, _ = files(d)
    train.write_text("".join(f"{x}\t{y}\n" for y, x in (
        line.split("\t") for line in train.read_text().splitlines())))
    return run_on()


def model_is_file(d, s):
    files(d)
    return ["predict", "--model", "train.tsv", "a warm film"]


def unicode_name(d, s):
    files(d)
    return [*run_on(), "--name", "đánh_giá"]


def named(name: str):
    def check(d, done):
        found = [p.name for p in (d / "r").glob("*.json")]
        return [] if found == [f"run__avg__{name}__s0.json"] else [
            f"results file {found}"]
    return check


def cjk_folder(d, s):
    write_tsv(d / "数据" / "train.tsv", 40)
    write_tsv(d / "数据" / "test.tsv", 10, 1000)
    return run_on("数据/train.tsv", "数据/test.tsv")


def unknown_flag(d, s):
    files(d)
    return ["run", "--model", "avg", "--trian", "train.tsv", "--test", "test.tsv"]


def ctrl_c_then_other_dropout(d, s):
    """Ctrl-C a run after its first checkpoint; the case is the same command with
    another dropout: it must start afresh, and its results file say so."""
    write_tsv(d / "train.tsv", 20_000)
    write_tsv(d / "test.tsv", 10, 100_000)
    first = ["run", "--model", "avg", "--set", "header=false", "--set", "epochs=40",
             "--results", "r", "--train", "train.tsv", "--test", "test.tsv"]
    done = ENV.run(d, first, log=f"{d.name}.first",
                   interrupt=lambda: any((d / "r").glob("checkpoints/*/last.pt")))
    if done.rc != 130:
        raise RuntimeError(f"the first run was not interrupted: {done.rc} {done.err}")
    return ["run", "--model", "avg", "--set", "header=false", "--set", "epochs=2",
            "--set", "dropout=0.3", "--results", "r", "--train", "train.tsv",
            "--test", "test.tsv"]


def fresh_run(epochs: int, key: str, value):
    def check(d, done):
        result, problems = one_result(d, "r")
        if "continuing at" in done.out:
            problems.append("resumed another run's checkpoint")
        if result:
            if len(result["history"]) != epochs:
                problems.append(f"history of {len(result['history'])} epochs for "
                                f"epochs={epochs}")
            recorded = {**result["config"]["train"], **result["config"][
                "model_options"]}.get(key)
            if recorded != value:
                problems.append(f"{key} recorded as {recorded}")
        return problems
    return check


def shared_checkpoints(d, s):
    files(d)
    first = ["run", "--model", "avg", "--set", "header=false", "--set", "epochs=3",
             "--results", "r0", "--checkpoints", "c", "--train", "train.tsv",
             "--test", "test.tsv"]
    done = ENV.run(d, first, log=f"{d.name}.first")
    if done.rc != 0:
        raise RuntimeError(f"the first run failed: {done.err}")
    return ["run", "--model", "avg", "--set", "header=false", "--set", "epochs=1",
            "--set", "lr=0.01", "--results", "r", "--checkpoints", "c",
            "--train", "train.tsv", "--test", "test.tsv"]


def start_out_of_range(d, s):
    s.copy("sa", d)
    return ["attention", "--model", "sa", "a warm film", "--html", "view.html",
            "--start", "3,1"]


def simple(argv_more: list[str], setup_files: Callable[[Path], None] = files):
    def setup(d, s):
        setup_files(d)
        return list(argv_more)
    return setup


def empty_train(d):
    files(d)
    (d / "train.tsv").write_bytes(b"")


T = "tests/"
BROKEN = T + "test_saved_model.py::test_a_broken_weights_file_is_one_line"
CASES = [
    Case("CR-only line ends (TSV)", "61.3", "handled", cr_only, sizes_are(40, 10),
         T + "test_silent_numbers.py::test_a_tsv_with_cr_line_ends_is_read_line_by_line"),
    Case("UTF-16 with a BOM", "52.4", "handled", utf16(True), sizes_are(40, 10),
         T + "test_user_file_honesty.py::test_a_byte_order_mark_says_how_the_file_is_"
         "read"),
    Case("UTF-16 without a BOM", "61.5", "refused", utf16(False),
         lambda d, done: says(done, "UTF-16"),
         T + "test_bad_inputs_61.py::test_utf16_without_a_bom_is_named"),
    Case("UTF-8 with one cp1252 line (line 31)", "52.4", "refused", stray_cp1252,
         lambda d, done: says(done, "line 31", not_=("latin-1", "cp1252")),
         T + "test_user_file_honesty.py::test_a_utf8_file_with_one_bad_line_is_not_"
         "called_latin1"),
    Case("one class in training", "52.5", "refused", one_class, test=T +
         "test_user_file_honesty.py::test_a_training_file_of_one_class_is_an_error"),
    Case("labels 1, 1.0, 01 (one class) and 2", "61.3", "handled", numeric_labels,
         sizes_are(40, 10, ["1", "2"]),
         T + "test_silent_numbers.py::test_one_class_written_three_ways_is_one_class"),
    Case("label NaN (line 5)", "61.3", "refused", nan_label,
         lambda d, done: says(done, "line 5"),
         T + "test_silent_numbers.py::test_a_missing_value_label_is_refused_naming_"
         "its_line"),
    Case("--set lr=inf", "61.3", "refused", simple(run_on("train.tsv", "test.tsv",
                                                          "--set", "lr=inf")),
         test=T + "test_class_balance.py::test_bad_choices_are_one_line"),
    Case("NaN loss (--set lr=1e30), with --save-model", "61.3", "refused",
         simple(run_on("train.tsv", "test.tsv", "--set", "lr=1e30", "--save-model",
                       "m")),
         lambda d, done: says(done, "not a finite number") if "batch" in done.err
         else says(done, "nan"),
         T + "test_class_balance.py::test_a_nan_loss_stops_the_run_with_one_line_and_"
         "no_results_file", may_leave=("r/", "r/checkpoints*")),
    Case("predict on a labelled file", "61.3", "handled", predict_labelled,
         lambda d, done: says(done, "looks labelled", "evaluate"),
         T + "test_predict_stream.py::test_a_labelled_file_gets_one_note_pointing_to_"
         "evaluate"),
    Case("3-column CSV (label, text, source)", "61.3", "handled", three_columns,
         lambda d, done: says(done, "not read", "'source'") + sizes_are(40, 10)(d, done),
         T + "test_silent_numbers.py::test_columns_not_read_are_named_once"),
    Case("evaluate without the training file's options", "61.3", "handled",
         evaluate_bare, accuracy_of_training(),
         T + "test_silent_numbers.py::test_a_saved_model_keeps_how_its_files_were_read"),
    Case("--save-model onto a saved model, no --force", "61.4", "refused",
         save_onto_model, test=T + "test_model_not_lost.py::test_run_refuses_a_model_"
         "folder_before_reading_data"),
    Case("full disk at --save-model", "61.4", "refused", full_disk_model,
         nothing_on_the_full_disk,
         T + "test_model_not_lost.py::test_a_full_disk_at_the_model_keeps_the_run_and_"
         "claims_nothing", wrap="full", may_leave=("r/", "r/checkpoints*"),
         note="a full 64 KiB tmpfs at full/"),
    Case("full disk under --results", "61.4", "refused", full_disk_results,
         nothing_on_the_full_disk,
         T + "test_model_not_lost.py::test_a_full_disk_at_a_checkpoint_is_one_line",
         wrap="full", note="a full 64 KiB tmpfs at full/"),
    Case("0-byte weights.safetensors", "61.5", "refused", weights("empty"),
         test=BROKEN),
    Case("random bytes as weights.safetensors (10 files)", "61.5", "refused",
         weights("random", files_=10),
         lambda d, done: says(done, not_=("weights_only",)), BROKEN),
    Case("a text file as weights.safetensors", "61.5", "refused", weights("text"),
         test=BROKEN),
    Case("0-byte weights.pt (legacy)", "61.5", "refused", weights("empty", True),
         test=BROKEN),
    Case("random bytes as weights.pt (legacy; 30 files)", "52.6, 61.5", "refused",
         weights("random", True, 30), lambda d, done: says(done, not_=("weights_only",)),
         BROKEN),
    Case("a text file as weights.pt (legacy)", "61.5", "refused",
         weights("text", True), lambda d, done: says(done, not_=("error: 101",)),
         BROKEN),
    Case("attention on all-MiniLM-L6-v2, no transformers", "61.5", "refused",
         transformers_attention, lambda d, done: says(done, "lamalib[bert]"),
         T + "test_bad_inputs_61.py::test_a_missing_optional_package_names_its_extra",
         block="transformers", note="transformers hidden (sys.modules)"),
    Case("run --model bert, no transformers", "61.5", "refused", transformers_run,
         lambda d, done: says(done, "lamalib[bert]"),
         T + "test_bad_inputs_61.py::test_a_missing_optional_package_names_its_extra",
         block="transformers", note="transformers hidden (sys.modules)"),
    Case("evaluate --figure c.txt", "61.5", "refused", figure_txt,
         lambda d, done: says(done, "not an image format"),
         T + "test_bad_inputs_61.py::test_a_figure_name_that_is_no_image_is_refused_"
         "first"),
    Case("--set test_fraction=0.999", "61.5", "refused", test_fraction,
         lambda d, done: says(done, "test_fraction=0.999"),
         T + "test_bad_inputs_61.py::test_a_test_share_that_leaves_nothing_to_"
         "validate_on"),
    Case("--train /dev/null", "61.5", "refused", dev_null,
         lambda d, done: says(done, "not a regular file", not_=("permission",)),
         T + "test_bad_inputs_61.py::test_a_device_is_not_a_data_file"),
    Case("--results on a read-only mount", "61.5", "refused", read_only_mount,
         lambda d, done: says(done, "read-only file system", not_=("chmod",)),
         T + "test_bad_inputs_61.py::test_a_read_only_file_system_is_not_a_permission_"
         "to_chmod", wrap="read-only", note="ro/ bind-mounted read-only"),
    Case("--set embeddings=glove.txt (no such file)", "61.5", "refused",
         embeddings_missing, lambda d, done: says(done, "no such file"),
         T + "test_bad_inputs_61.py::test_a_vectors_file_that_is_not_there"),
    Case("Ctrl-C in predict --file (300,000 lines)", "61.1", "interrupted",
         ctrl_c_predict, rows_whole,
         T + "test_predict_stream.py::test_ctrl_c_in_predict_has_its_own_words_on_the_"
         "command_line", interrupt=after_rows, note="SIGINT once rows are written"),
    Case("--results folder the user may not write", "52.2", "refused",
         unwritable("--results"), lambda d, done: says(done, "--results"),
         T + "test_output_paths.py::test_a_read_only_output_folder_is_one_line_before_"
         "data", wrap="nobody", note="as a user without write permission"),
    Case("--save-model under a folder the user may not write", "52.2", "refused",
         unwritable("--save-model"), lambda d, done: says(done, "--save-model"),
         T + "test_output_paths.py::test_a_read_only_output_folder_is_one_line_before_"
         "data", wrap="nobody", note="as a user without write permission"),
    Case("--checkpoints folder the user may not write", "52.2", "refused",
         unwritable("--checkpoints"), lambda d, done: says(done, "--checkpoints"),
         T + "test_output_paths.py::test_a_read_only_output_folder_is_one_line_before_"
         "data", wrap="nobody", note="as a user without write permission"),
    Case("attention on a 120,000-character text (self_attention)", "52.3",
         "handled or refused", long_attention, bounded,
         T + "test_mutations_61.py::test_attention_reads_512_tokens_by_default"),
    Case("an emoji-only text to predict", "52.5", "handled", emoji,
         lambda d, done: says(done, "no word"),
         T + "test_user_file_honesty.py::test_predict_flags_a_text_with_no_word_the_"
         "model_knows"),
    Case("blank lines in predict --file", "52.5", "handled", blank_lines, row_per_line,
         T + "test_user_file_honesty.py::test_predict_file_keeps_a_row_per_line"),
    Case("label and text columns swapped", "52.6", "refused", swapped,
         lambda d, done: says(done, "swapped") + (
             [f"a {len(done.err)}-character message"] if len(done.err) > 400 else []),
         T + "test_user_file_honesty.py::test_swapped_columns_show_a_few_labels_and_"
         "say_so"),
    Case("--model given a file", "52.6", "refused", model_is_file,
         lambda d, done: says(done, not_=("no such folder",)),
         T + "test_saved_model.py::test_a_folder_that_is_not_there (a missing folder "
         "only)"),
    Case("--name đánh_giá", "52.6", "handled", unicode_name, named("đánh_giá"),
         T + "test_run_names.py::test_a_unicode_name_names_the_results_file"),
    Case("data in a folder 数据/", "52.6", "handled", cjk_folder, named("数据"),
         T + "test_run_names.py::test_names_keep_letters_of_any_script"),
    Case("an unknown flag (--trian)", "52.6", "usage", unknown_flag,
         test=T + "test_user_file_honesty.py::test_a_subcommands_usage_comes_with_its_"
         "error"),
    Case("Ctrl-C, then the same command with another dropout", "52.1", "handled",
         ctrl_c_then_other_dropout, fresh_run(2, "dropout", 0.3),
         T + "test_run_checkpoints.py::test_a_setting_changed_after_ctrl_c_starts_"
         "afresh", may_leave=("*",),
         note="after a run stopped by SIGINT"),
    Case("another run's checkpoint in a shared --checkpoints, epochs=1", "52.1",
         "handled", shared_checkpoints, fresh_run(1, "lr", 0.01),
         T + "test_run_checkpoints.py::test_another_learning_rate_in_a_shared_folder_"
         "trains_its_own_run", note="after a 3-epoch run into the same c/"),
    Case("--start out of range (attention --html)", "brief", "refused",
         start_out_of_range, lambda d, done: says(done, "--start 3,1"),
         T + "test_attention_view.py::test_a_bad_start_is_one_line_and_writes_nothing"),
    Case("a missing --train file", "brief", "refused",
         simple(run_on("nope.tsv", "test.tsv")),
         lambda d, done: says(done, "nope.tsv", "no such file"),
         T + "test_cli_errors.py::test_a_missing_file_a_folder_and_a_missing_test_are_"
         "one_line"),
    Case("a wrong --set key (epoch=1)", "brief", "refused",
         simple(run_on("train.tsv", "test.tsv", "--set", "epoch=1")),
         lambda d, done: says(done, "epoch"), T + "test_cli_errors.py"),
    Case("an unknown --model (lstm)", "brief", "refused",
         simple(["run", "--model", "lstm", "--train", "train.tsv", "--test",
                 "test.tsv", "--results", "r"]),
         lambda d, done: says(done, "lstm"),
         T + "test_experiments.py (unknown model 'lstm')"),
    Case("an empty (0-byte) --train file", "brief", "refused",
         simple(run_on(), empty_train), lambda d, done: says(done, "train.tsv"),
         T + "test_table.py (no data rows)"),
]


# ---- judging ---------------------------------------------------------------------------

def judge(case: Case, argv: list[str], d: Path, done: Done, change: dict
          ) -> list[str]:
    lines, problems = done.lines, []
    traceback = "Traceback" in done.err
    if traceback:
        problems.append("a traceback")
    expect = case.expect
    if expect == "handled or refused":
        expect = "refused" if done.rc == 2 else "handled"
    if expect == "refused":
        if done.rc != 2:
            problems.append(f"exit {done.rc}, not 2")
        if len(lines) != 1:
            problems.append(f"{len(lines)} stderr lines, not 1")
        elif not lines[0].startswith("error: "):
            problems.append("the line is no 'error: ...'")
        left = [p for p in change["added"]
                if not any(fnmatch.fnmatch(p, pat) for pat in case.may_leave)]
        if left:
            problems.append(f"left behind: {summary(left)}")
        if any(p.startswith(("r/", "full/r/")) and p.endswith(".json")
               for p in change["added"]):
            problems.append("a results file")
    elif expect == "handled":
        if done.rc != 0:
            problems.append(f"exit {done.rc}, not 0")
    elif expect == "usage":
        sub = argv[0]
        if done.rc != 2:
            problems.append(f"exit {done.rc}, not 2")
        if not (lines and lines[0].startswith(f"usage: {PROGRAM} {sub}")):
            problems.append("not the subcommand's usage")
    elif expect == "interrupted":
        if done.rc != 130:
            problems.append(f"exit {done.rc}, not 130")
        if len(lines) != 1:
            problems.append(f"{len(lines)} stderr lines, not 1")
    if change["changed"] or change["removed"]:
        problems.append("lost: " + summary(change["changed"] + change["removed"]))
    if case.check and (done.rc in (0, 2, 130)):
        problems += case.check(d, done)
    return problems


def left_text(change: dict, done: Done, case: Case) -> str:
    parts = []
    for key in ("added", "changed", "removed"):
        if change[key]:
            parts.append(f"{key}: {summary(change[key])}")
    if case.wrap == "full":
        parts.append("on the full disk: " + (", ".join(
            line.split()[1] + ("/" if line.startswith("d ") else "")
            for line in done.listing[:4]) or "nothing"))
    return "; ".join(parts) or "nothing"


def scrub(text: str, root: Path) -> str:
    for form in {str(root), os.path.realpath(root)}:
        text = re.sub(re.escape(form) + r"/[^/\s'\"]+/?", "", text)
        text = text.replace(form, "<tmp>")
    return text


ENV: Env
SHARED: Shared


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()[:40]


def main() -> None:
    global ENV, SHARED
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="cases whose name holds one of these")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--out", default="results/benchmark__bad_inputs.json")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bad_inputs_"))
    os.chmod(root, 0o755)
    ENV = Env(root)
    started = time.perf_counter()
    shared = SHARED = Shared(ENV)
    rows = []
    try:
        for n, case in enumerate(CASES, 1):
            if args.only and not any(o.lower() in case.name.lower() for o in args.only):
                continue
            d = root / f"{n:02d}_{slug(case.name)}"
            d.mkdir()
            os.chmod(d, 0o755)
            row = {"n": n, "case": case.name, "source": case.source,
                   "expect": case.expect, "test": case.test}
            skip = ("nobody" == case.wrap and not ENV.can_deny) or (
                case.wrap in ("read-only", "full") and not ENV.can_mount)
            if skip:
                rows.append({**row, "command": "", "skipped":
                             "needs unshare -m (root)" if case.wrap != "nobody"
                             else "needs setpriv (root) or a non-root user"})
                continue
            given = case.setup(d, shared)
            tries = given if isinstance(given[0], list) else [given]
            outcomes = []
            for k, argv in enumerate(tries):
                log = d.name + (f".{k}" if len(tries) > 1 else "")
                before = snapshot(d)
                done = ENV.run(d, argv, block=case.block, wrap=case.wrap,
                               interrupt=case.interrupt(d, ENV.logs / f"{log}.out")
                               if case.interrupt else None, log=log)
                change = difference(before, snapshot(d))
                outcomes.append((argv, done, change,
                                 judge(case, argv, d, done, change)))
            # the row shows the first variant that is not clean, else the first
            argv, done, change, problems = next(
                (o for o in outcomes if o[3]), outcomes[0])
            how = case.note
            if len(tries) > 1:
                tally = collections.Counter(p for o in outcomes for p in o[3])
                how = "; ".join([f"{sum(not o[3] for o in outcomes)} of {len(tries)} "
                                 "files clean", *(f"{k}: {p}" for p, k in tally.items()),
                                 *(["the first unclean shown"] if problems else []),
                                 *([how] if how else [])])
            first = done.lines[0] if done.lines else ""
            rows.append({**row,
                         "command": f"{PROGRAM} {shlex.join(argv)}",
                         "how": how,
                         "exit": done.rc, "stderr_lines": len(done.lines),
                         "traceback": "Traceback" in done.err,
                         "first_line": scrub(first, root),
                         "left": scrub(left_text(change, done, case), root),
                         "clean": not problems,
                         "problems": [scrub(p, root) for p in problems],
                         "seconds": round(done.seconds, 1),
                         "peak_rss_mb": round(done.rss_mb)})
            print(f"{n:2d} {case.name}: {'clean' if not problems else problems}",
                  file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept {root}", file=sys.stderr)
    total = time.perf_counter() - started
    print_table(rows)
    ran = [r for r in rows if "skipped" not in r]
    clean = sum(r["clean"] for r in ran)
    print(f"\n{clean} of {len(ran)} cases clean ({len(rows) - len(ran)} skipped), "
          f"{total:.0f} s")
    if args.only:
        return  # a partial run writes no results file
    from lamalib.analysis.timing import save_benchmark

    save_benchmark(args.out, "bad_inputs",
                   {"profile": "quick", "threads": 1, "program": PROGRAM},
                   {"cases": rows, "clean": clean, "ran": len(ran),
                    "skipped": len(rows) - len(ran), "seconds": round(total)})


def cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def print_table(rows: list[dict]) -> None:
    print("| # | case | issue | command | exit | stderr lines | traceback | first stderr "
          "line | left behind / lost | clean | test |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "skipped" in r:
            print(f"| {r['n']} | {cell(r['case'])} | {r['source']} | | | | | | | "
                  f"skipped: {r['skipped']} | {cell(r['test'])} |")
            continue
        command = r["command"].removeprefix(PROGRAM + " ")
        how = f" ({r['how']})" if r["how"] else ""
        verdict = "yes" if r["clean"] else "**no**: " + "; ".join(r["problems"])
        print(f"| {r['n']} | {cell(r['case'])} | {r['source']} | `{cell(command)}`"
              f"{cell(how)} | {r['exit']} | {r['stderr_lines']} | "
              f"{'yes' if r['traceback'] else 'no'} | {cell(r['first_line'])} | "
              f"{cell(r['left'])} | {cell(verdict)} | {cell(r['test'])} |")


if __name__ == "__main__":
    main()
