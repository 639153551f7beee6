"""Run a chapter notebook under many seeds and count, per ``assert``, the seeds it holds
for (DESIGN.md, "What a notebook asserts": an assert about a training outcome must hold
for any ``LAMALIB_SEED``).

Every ``assert`` statement of a code cell (at the top level of the cell or inside its
``for``/``if``/``with``/``try`` blocks or a ``class`` body, which runs with the cell;
not inside a ``def``, which runs when called) is rewritten
into a recorded check: it runs as written, in the same scope, but a failure is recorded
instead of raised, so the cell and every later cell still run. A cell that raises
anything else is recorded as an error (the asserts after it in that cell are "not
reached", which counts as not passing) and the run goes on with the next cell. Each
seed runs in a fresh kernel with ``LAMALIB_SEED=k``; the notebook on disk is not
changed.

    OMP_NUM_THREADS=1 nice -n 5 python tools/seed_sweep.py book/04_attention.ipynb \\
        --seeds 0-19 --jobs 1 --kernels avx2 --timeout 600 \\
        --out results/seed_sweep/04_attention.json

prints a markdown table, one row per assert: its cell (the index in the notebook's
list of cells, 0-based, as ``nbformat`` reads it), its line in the cell, its source,
and how many seeds pass; ``--out`` writes the same as JSON, with the failing seeds,
each run's errors, seconds and glued values (myst-nb's ``glue``: the numbers the prose
shows, to see how far a margin is from what the seeds give), and the command. The quick profile and no progress bars
are set unless the environment says otherwise (``LAMALIB_PROFILE``,
``LAMALIB_PROGRESS``). ``--kernels avx2`` pins ``ATEN_CPU_CAPABILITY=avx2`` as CI
does; ``native`` unsets it.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
CHECK = "_seed_sweep_check"

# the first cell of every instrumented run: records go to a JSON-lines file, one per
# check, written at once, so a run cut short by the timeout still counts what it reached
_SETUP = '''\
import json as _seed_sweep_json
_SEED_SWEEP_RECORDS = {path!r}
def {check}(_id, _outcome, _message=""):
    with open(_SEED_SWEEP_RECORDS, "a") as _f:
        _f.write(_seed_sweep_json.dumps({{"kind": "check", "id": _id, "outcome": _outcome,
                                         "message": str(_message)[:300]}}) + "\\n")
def _seed_sweep_cell(_cell, _error=None):
    with open(_SEED_SWEEP_RECORDS, "a") as _f:
        _f.write(_seed_sweep_json.dumps({{"kind": "cell", "cell": _cell,
                                         "error": _error}}) + "\\n")
'''


def parse_seeds(text: str) -> list[int]:
    """``"0-19"``, ``"3"`` or ``"0-4,7,9-10"`` as a list of seeds."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            seeds.extend(range(int(lo), int(hi) + 1))
        else:
            seeds.append(int(part))
    if not seeds or min(seeds) < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: seeds are whole numbers >= 0")
    return seeds


def _python_source(source: str) -> str:
    """A cell's source as plain Python (IPython's magics and ``!`` lines translated,
    line numbers kept)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with the kernel
        return source
    return TransformerManager().transform_cell(source)


class _Asserts(ast.NodeTransformer):
    """Replace each ``assert`` that runs with the cell (not inside a function; a class
    body runs when the cell does, its methods' bodies do not) by a ``try`` that runs it
    and records ``pass``, ``fail`` (AssertionError) or ``error`` (anything else raised
    while evaluating it) without raising."""

    def __init__(self, cell: int, source: str):
        self.cell, self.source, self.found = cell, source, []

    def visit_FunctionDef(self, node):  # asserts in a def run when it is called: kept
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    def visit_ClassDef(self, node):  # a class body runs with the cell: its asserts
        self.generic_visit(node)     # are checks (its methods' are not, above)
        return node

    def visit_Assert(self, node: ast.Assert):
        text = ast.get_source_segment(self.source, node) or ast.unparse(node)
        check_id = f"c{self.cell}l{node.lineno}"
        if any(f["id"] == check_id for f in self.found):
            check_id += f"_{node.col_offset}"
        self.found.append({"id": check_id, "cell": self.cell, "line": node.lineno,
                           "source": " ".join(text.split())})
        call = f"{CHECK}({check_id!r}, {{}}, {{}})"
        code = (f"try:\n    pass\n"
                f"except AssertionError as _seed_sweep_e:\n"
                f"    {call.format(repr('fail'), 'repr(_seed_sweep_e)')}\n"
                f"except Exception as _seed_sweep_e:\n"
                f"    {call.format(repr('error'), 'repr(_seed_sweep_e)')}\n"
                f"else:\n"
                f"    {call.format(repr('pass'), repr(''))}\n")
        wrapper = ast.parse(code).body[0]
        wrapper.body = [node]
        return ast.copy_location(wrapper, node)


def instrument(nb, records: str):
    """A copy of ``nb`` whose asserts record instead of raising, and the list of the
    asserts found (id, cell, line, source)."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    found: list[dict] = []
    cells = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        python = _python_source(cell.source)
        try:
            tree = ast.parse(python)
        except SyntaxError:  # left as it is: the run records the cell's error
            cells.append(cell)
            continue
        transformer = _Asserts(index, python)
        tree = ast.fix_missing_locations(transformer.visit(tree))
        found.extend(transformer.found)
        # the cell's result stays shown; its errors are recorded by the executor
        cell.source = ast.unparse(tree) if transformer.found else cell.source
        cells.append(cell)
    setup = nbformat.v4.new_code_cell(_SETUP.format(path=records, check=CHECK))
    nb.cells = [setup] + cells
    return nb, found


def _worker(instrumented: Path, workdir: str, records: str, timeout: int) -> None:
    """Execute an instrumented notebook in a fresh kernel (this process's environment),
    in ``workdir``, and record each cell's error, if any."""
    from nbclient import NotebookClient

    nb = nbformat.read(instrumented, as_version=4)
    nb.cells[0].source = _SETUP.format(path=records, check=CHECK)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            allow_errors=True, resources={"metadata": {"path": workdir}})
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            client.execute_cell(cell, index)
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            glued = {}  # myst-nb's glue(name, value): the numbers the prose shows
            for o in cell.get("outputs", []):
                name = o.get("metadata", {}).get("scrapbook", {}).get("name")
                if name:
                    prefix = o["metadata"]["scrapbook"].get("mime_prefix", "")
                    glued[name] = str(o.get("data", {}).get(prefix + "text/plain", ""))[:1000]
            with open(records, "a") as f:
                if glued:
                    f.write(json.dumps({"kind": "glue", "values": glued}) + "\n")
                f.write(json.dumps({
                    "kind": "cell", "cell": index - 1,  # the setup cell is not counted
                    "error": (f"{errors[0]['ename']}: {errors[0]['evalue']}"[:300]
                              if errors else None)}) + "\n")


def run_seed(instrumented: Path, workdir: Path, seed: int, kernels: str,
             timeout: int) -> dict:
    """One seed in a child process (its own kernel); the records it left."""
    env = dict(os.environ)
    env["LAMALIB_SEED"] = str(seed)
    env.setdefault("LAMALIB_PROFILE", "quick")
    env.setdefault("LAMALIB_PROGRESS", "0")
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    if kernels == "native":
        env.pop("ATEN_CPU_CAPABILITY", None)
    else:
        env["ATEN_CPU_CAPABILITY"] = kernels
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    with tempfile.TemporaryDirectory(prefix="seed_sweep_") as tmp:
        records = os.path.join(tmp, "records.jsonl")
        Path(records).touch()
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, __file__, "--_worker", str(instrumented), str(workdir),
             records, str(timeout)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        timed_out = False
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
        seconds = time.monotonic() - start
        lines = [json.loads(x) for x in Path(records).read_text().splitlines() if x]
    checks: dict[str, str] = {}
    for r in (x for x in lines if x["kind"] == "check"):
        # an assert in a loop passes only if it passed every time it ran
        if checks.get(r["id"]) in ("fail", "error"):
            continue
        checks[r["id"]] = r["outcome"]
    messages = {r["id"]: r["message"] for r in lines
                if r["kind"] == "check" and r["outcome"] != "pass"}
    cell_errors = {str(r["cell"]): r["error"] for r in lines
                   if r["kind"] == "cell" and r["error"]}
    glued = {k: v for r in lines if r["kind"] == "glue" for k, v in r["values"].items()}
    return {"seed": seed, "seconds": round(seconds, 1), "timed_out": timed_out,
            "exit_code": proc.returncode, "checks": checks, "messages": messages,
            "cell_errors": cell_errors, "glue": glued,
            "tail": output[-2000:] if (proc.returncode or timed_out) else ""}


def summarise(found: list[dict], runs: list[dict]) -> list[dict]:
    rows = []
    for a in found:
        outcomes = {r["seed"]: r["checks"].get(a["id"], "not reached") for r in runs}
        rows.append({**a,
                     "passed": sum(o == "pass" for o in outcomes.values()),
                     "seeds": len(runs),
                     "failed_seeds": sorted(s for s, o in outcomes.items() if o == "fail"),
                     "error_seeds": sorted(s for s, o in outcomes.items() if o == "error"),
                     "not_reached_seeds": sorted(s for s, o in outcomes.items()
                                                 if o == "not reached"),
                     "messages": {str(r["seed"]): r["messages"][a["id"]] for r in runs
                                  if a["id"] in r["messages"]}})
    return rows


# a folder of this machine inside free text (a traceback, a message): kept to its name
_MACHINE_PATH = re.compile(
    r"(?<![\w.:/~+-])/[\w.~+-]+(?:/[\w.~+-]*)+"
    r"|(?<![\w.:/~+-])/(?:tmp|work|root|home|Users|mnt|var|opt|srv|private|scratch)\b"
    r"|(?<![\w~])~/[\w.~+/-]*")


def portable(value):
    """``value`` with no folder of this machine in it (results files are the same on
    every machine: tests/test_machine_paths.py): a path is named relative to the
    repository or by its file name, a path inside a text by its last part."""
    from lamalib.provenance import looks_like_path, portable_path

    if isinstance(value, str):
        if looks_like_path(value):
            return portable_path(value)
        return _MACHINE_PATH.sub(lambda m: m.group(0).rstrip("/").rsplit("/", 1)[-1]
                                 or "<path>", value)
    if isinstance(value, dict):
        return {k: portable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [portable(v) for v in value]
    return value


def markdown(notebook: str, rows: list[dict], runs: list[dict]) -> str:
    out = [f"### {notebook}: {len(runs)} seeds", "",
           "| cell | line | assert | seeds passing | failing seeds |",
           "|---:|---:|---|---:|---|"]
    for r in rows:
        src = r["source"].replace("|", "\\|")
        if len(src) > 90:
            src = src[:87] + "..."
        bad = r["failed_seeds"] + [f"{s} (error)" for s in r["error_seeds"]] + \
            [f"{s} (not reached)" for s in r["not_reached_seeds"]]
        mark = "" if r["passed"] >= r["seeds"] - 1 else " **"
        out.append(f"| {r['cell']} | {r['line']} | `{src}` | "
                   f"{r['passed']}/{r['seeds']}{mark} | {', '.join(map(str, bad))} |")
    errors = [(r["seed"], c, e) for r in runs for c, e in r["cell_errors"].items()]
    errors += [(r["seed"], "-", f"timed out after {r['seconds']} s") for r in runs
               if r["timed_out"]]
    if errors:
        out += ["", "Cell errors (seed, cell, error):", ""]
        out += [f"- seed {s}, cell {c}: {e}" for s, c, e in errors]
    secs = [r["seconds"] for r in runs]
    out += ["", f"Seconds per run: min {min(secs):.0f}, median "
            f"{sorted(secs)[len(secs) // 2]:.0f}, max {max(secs):.0f}."]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    from lamalib.provenance import command_line

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--_worker"]:
        _worker(Path(argv[1]), argv[2], argv[3], int(argv[4]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("notebook", type=Path)
    p.add_argument("--seeds", type=parse_seeds, default=parse_seeds("0-19"),
                   help="seeds as 0-19, 3 or 0-4,7 (default 0-19)")
    p.add_argument("--jobs", type=int, default=1, help="runs at a time (default 1)")
    p.add_argument("--kernels", default="avx2",
                   help="avx2 (ATEN_CPU_CAPABILITY=avx2, as CI pins; the default), "
                        "native (unset) or another ATEN_CPU_CAPABILITY value")
    p.add_argument("--timeout", type=int, default=600,
                   help="seconds one seed's run may take (default 600)")
    p.add_argument("--out", type=Path, help="write the table and the runs as JSON")
    p.add_argument("--cwd", type=Path,
                   help="the folder the kernel runs in (default: the notebook's): to "
                        "sweep a copy of a chapter kept elsewhere, e.g. the version "
                        "before a change, from book/")
    args = p.parse_args(argv)
    notebook = args.notebook.resolve()
    workdir = (args.cwd or notebook.parent).resolve()
    notebook_bytes = notebook.read_bytes()
    nb = nbformat.reads(notebook_bytes.decode("utf-8"), as_version=4)
    # the notebook is read once: a chapter edited while the sweep runs does not change it
    tmp = tempfile.TemporaryDirectory(prefix="seed_sweep_nb_")
    instrumented = Path(tmp.name) / notebook.name
    nb_run, found = instrument(nb, "/dev/null")
    nbformat.write(nb_run, instrumented)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        shown = str(notebook.relative_to(ROOT))
    except ValueError:
        shown = str(notebook)
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, text=True,
                                capture_output=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--", "lamalib",
                                     str(notebook)], cwd=ROOT, text=True,
                                    capture_output=True).stdout.strip())
    except OSError:
        commit, dirty = "", None
    env = {k: os.environ[k] for k in sorted(os.environ)
           if k.startswith("LAMALIB_") or k in ("OMP_NUM_THREADS",)}
    runs: list[dict] = []
    lock = threading.Lock()

    def write(complete: bool) -> None:
        # after every seed, so a sweep cut short keeps the seeds it finished
        if not args.out:
            return
        done = sorted(runs, key=lambda r: args.seeds.index(r["seed"]))
        payload = {
            "notebook": shown,
            "notebook_sha256": hashlib.sha256(notebook_bytes).hexdigest(),
            "cwd": str(workdir),
            "command": command_line(argv, "python tools/seed_sweep.py",
                                    local=("--out",)),
            "started": started,
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")
            if complete else None,
            "complete": complete,
            "git_commit": commit, "git_dirty": dirty,
            "kernels": args.kernels, "environment": env,
            "machine": platform.machine(), "python": platform.python_version(),
            "seeds": [r["seed"] for r in done], "seeds_asked": args.seeds,
            "timeout_s": args.timeout,
            "asserts": summarise(found, done),
            "runs": done,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        part = args.out.with_suffix(".part")
        part.write_text(json.dumps(portable(payload), indent=1, ensure_ascii=False)
                        + "\n")
        part.replace(args.out)

    def one(seed: int) -> dict:
        r = run_seed(instrumented, workdir, seed, args.kernels, args.timeout)
        bad = sum(o != "pass" for o in r["checks"].values())
        print(f"seed {seed}: {r['seconds']:.0f} s, {len(r['checks'])} asserts reached, "
              f"{bad} not passing, {len(r['cell_errors'])} cell errors"
              + (", timed out" if r["timed_out"] else ""), file=sys.stderr, flush=True)
        with lock:
            runs.append(r)
            write(complete=False)
        return r

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, args.seeds))
    tmp.cleanup()
    runs.sort(key=lambda r: args.seeds.index(r["seed"]))
    print(markdown(shown, summarise(found, runs), runs))
    write(complete=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
