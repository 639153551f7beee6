"""Check the course on a fresh Colab GPU runtime (for maintainers; CI cannot run it,
as there is no Colab, no browser and no GPU there).

In a new Colab notebook with a GPU (Runtime > Change runtime type > T4 GPU), run:

    !git clone -q --depth 1 REPOSITORY_URL /content/src
    %run /content/src/tools/colab_check.py

with the repository's URL (``repository.url`` in ``_config.yml``, also this script's
default ``--repo``). Use ``%run``, not ``!python``: the explorer and the progress bar
must be drawn by the notebook itself. The script

1. installs lamalib from the repository URL exactly as a chapter's first cell does
   (pip's default only-if-needed strategy, ``--report``) and lists which of Colab's
   packages pip changed, with the restart line a reader would see;
2. runs one chapter top to bottom in the quick profile (in a second kernel, nbclient);
3. shows the attention explorer and a ``tqdm.auto`` progress bar here: look at them,
   only a browser can tell whether widgets render;
4. trains one epoch in the full profile on the GPU with mixed precision (SST-2,
   downloaded in seconds, with chapter 3's full-size BiGRU) and checks that float16
   activations were seen;
5. prints what it saw: versions, widget manager, AMP, times.

``--dry-run`` prints the plan and does nothing; ``--help`` lists the options.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Written by tools/sync_colab_cell.py from _config.yml (repository.url / .branch).
REPOSITORY = "https://github.com/attention-course/lamalib"
BRANCH = "main"
REPORT = "/tmp/lamalib-pip.json"  # the same report file as the chapters' install cell
CHAPTER = "01_setup.ipynb"
# What Colab provides and the install must not change (plus the kernel's own stack).
WATCHED = ("torch", "numpy", "scipy", "pandas", "matplotlib", "ipywidgets", "ipython",
           "ipykernel", "tqdm")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="colab_check.py",
        description="Install lamalib as a chapter does, run a quick chapter, show "
        "widgets, train one full-profile epoch with AMP on the GPU, and report.",
    )
    parser.add_argument("--repo", default=REPOSITORY,
                        help="repository URL to install from (default: %(default)s)")
    parser.add_argument("--branch", default=BRANCH, help="default: %(default)s")
    parser.add_argument("--chapter", default=CHAPTER,
                        help="notebook under book/ to run (default: %(default)s)")
    parser.add_argument("--skip-install", action="store_true",
                        help="use the lamalib that is installed")
    parser.add_argument("--skip-chapter", action="store_true")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the plan and do nothing")
    return parser.parse_args(argv)


def requirement(url: str, branch: str) -> str:
    return f"lamalib @ git+{url}@{branch}"


def pip_command(url: str, branch: str, report: str = REPORT) -> list[str]:
    """The install cell's ``%pip install``: no upgrade flags, a report of what
    changed."""
    return [sys.executable, "-m", "pip", "install", "-q", "--report", report,
            requirement(url, branch)]


def versions(names=WATCHED) -> dict[str, str | None]:
    """Installed version of each distribution (``None`` if missing)."""
    importlib.invalidate_caches()
    found = {}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def changed(before: dict, after: dict) -> list[str]:
    """``"numpy 2.0.2 -> 1.26.4"`` for each distribution whose version differs."""
    return [f"{name} {before.get(name)} -> {after.get(name)}"
            for name in sorted(set(before) | set(after))
            if before.get(name) != after.get(name)]


def in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and "IPKernelApp" in shell.config


def install(args: argparse.Namespace) -> dict:
    before = versions()
    present = importlib.util.find_spec("lamalib") is not None
    seen = {"before": before, "requirement": requirement(args.repo, args.branch)}
    if args.skip_install or present:
        seen["install"] = ("skipped: lamalib was already installed (use a fresh "
                           "runtime to check the install)" if present else "skipped")
        seen["after"] = before
        return seen
    start = time.perf_counter()
    proc = subprocess.run(pip_command(args.repo, args.branch), capture_output=True,
                          text=True)
    seen["install_seconds"] = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"pip failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    importlib.invalidate_caches()
    from lamalib.install_check import in_use, installed_by_pip, restart_message

    installed = installed_by_pip(REPORT)
    others = {d: v for d, v in installed.items() if d.lower() != "lamalib"}
    seen.update(install="ok", pip_installed=installed, after=versions(),
                restart=restart_message(in_use(others), others))
    return seen


def run_chapter(path: Path) -> dict:
    """Execute a chapter in a new kernel with the quick profile; time it."""
    try:
        import nbclient
        import nbformat
    except ImportError as err:
        return {"chapter": path.name, "error": f"{err}: pip install nbclient"}
    nb = nbformat.read(path, as_version=4)
    env = {"LAMALIB_PROFILE": "quick", "LAMALIB_PROGRESS": "0"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the chapter's kernel inherits them
    start = time.perf_counter()
    try:
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}
                                ).execute()
        error = None
    except Exception as err:  # a failing cell: report it, go on with the checks
        error = str(err)[-2000:]
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v
    return {"chapter": path.name, "seconds": time.perf_counter() - start,
            "error": error}


def chapter_path(args: argparse.Namespace) -> Path:
    """The chapter in this checkout, or in a fresh shallow clone if there is none."""
    local = ROOT / "book" / args.chapter
    if local.exists():
        return local
    clone = Path(tempfile.mkdtemp()) / "src"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", args.branch,
                    args.repo, str(clone)], check=True)
    return clone / "book" / args.chapter


def show_widgets() -> dict:
    """Turn widgets on as a chapter does, then draw the explorer and a progress bar."""
    import tqdm.auto
    import tqdm.notebook

    from lamalib import runtime
    from lamalib.data import Vocab
    from lamalib.models import build_model
    from lamalib.viz.explorer import examples_from_model, explore

    summary = runtime.setup(seed=0)
    print(summary)
    texts = ["the film was not good", "a dull plot with a charming actor"]
    vocab = Vocab.build(texts)
    model = build_model("self_attention", vocab_size=len(vocab), num_classes=2,
                        d_model=16, n_heads=2, n_layers=2)
    explore(examples_from_model(model, vocab, texts))
    bar = tqdm.auto.tqdm(range(20), desc="progress bar check")
    for _ in bar:
        time.sleep(0.05)
    return {"setup": summary, "ipywidgets": runtime.ipywidgets_version(),
            "widget_manager": runtime.widget_manager_enabled(),
            "colab": runtime.is_colab(), "notebook": in_notebook(),
            "bar": "widget" if isinstance(bar, tqdm.notebook.tqdm) else "text"}


def dtype_probe(module):
    """Record the dtype of ``module``'s outputs in training mode (AMP evidence).

    Returns ``(seen, handle)``: ``seen`` is a set of dtypes; ``handle.remove()``."""
    seen = set()

    def hook(mod, inputs, output):
        if mod.training:
            seen.add(output.dtype)

    return seen, module.register_forward_hook(hook)


def full_epoch(dataset: str = "sst2", device: str | None = None, **load_kw) -> dict:
    """One epoch of chapter 3's full-profile BiGRU (its full sizes, a real dataset) on
    the GPU with mixed precision. ``device``/``load_kw`` let a test run it small on a
    CPU, where ``fit`` uses no AMP."""
    import torch

    if device is None:
        if not torch.cuda.is_available():
            return {"skipped": "no GPU (Runtime > Change runtime type > T4 GPU)"}
        device = "cuda"
    from lamalib.data import Vocab, load_dataset, make_loader
    from lamalib.models import build_model
    from lamalib.train import TrainConfig, fit

    start = time.perf_counter()
    train = load_dataset(dataset, split="train", **load_kw)
    valid = load_dataset(dataset, split="valid", **load_kw)
    load_seconds = time.perf_counter() - start
    vocab = Vocab.build(train.texts, min_freq=1)
    model = build_model("bigru_max", vocab_size=len(vocab),
                        num_classes=train.num_classes, embed_dim=100, hidden_size=128,
                        dropout=0.3)
    dtypes, handle = dtype_probe(model.out)
    config = TrainConfig(epochs=1, lr=1e-3, amp=True, device=device)
    history = fit(model, make_loader(train, vocab, 64, shuffle=True),
                  make_loader(valid, vocab, 256), config)
    handle.remove()
    record = history.records[-1]
    return {"dataset": dataset, "train": len(train), "load_seconds": load_seconds,
            "gpu": torch.cuda.get_device_name() if device == "cuda" else device,
            "amp_dtypes": sorted(map(str, dtypes)),
            "amp": torch.float16 in dtypes, "epoch_seconds": record["seconds"],
            "valid_accuracy": record.get("valid_accuracy")}


def summary_lines(seen: dict) -> list[str]:
    """The report, one finding a line."""
    lines = ["lamalib Colab check", f"  python     : {sys.version.split()[0]}"]
    inst = seen.get("install", {})
    if inst:
        moved = changed(inst["before"], inst["after"])
        took = (f" in {inst['install_seconds']:.0f} s"
                if "install_seconds" in inst else "")
        lines.append(f"  install    : {inst['requirement']}: {inst['install']}{took}")
        lines.append("  versions   : " + ", ".join(
            f"{k} {v}" for k, v in inst["after"].items() if v))
        if inst["install"] == "ok":
            lines.append("  pip changed: " + (", ".join(moved) if moved else
                                              "none of " + ", ".join(WATCHED)))
        lines.append(f"  restart    : {inst.get('restart') or 'not needed'}")
    w = seen.get("widgets")
    if w:
        manager = ("on" if w["widget_manager"] else
                   "off (Colab draws ipywidgets 7 itself)" if w["colab"] else
                   "off (not Colab)")
        lines.append(f"  widgets    : ipywidgets {w['ipywidgets']}, Colab custom "
                     f"widget manager {manager}, progress bar: {w['bar']}"
                     + ("" if w["notebook"] else " (not in a notebook: use %run)"))
    ch = seen.get("chapter")
    if ch:
        lines.append(f"  chapter    : {ch['chapter']} (quick) " + (
            f"ran in {ch['seconds']:.0f} s" if not ch.get("error") else
            f"FAILED: {ch['error']}"))
    ep = seen.get("epoch")
    if ep:
        lines.append("  full epoch : " + (ep["skipped"] if "skipped" in ep else (
            f"{ep['dataset']} ({ep['train']} sentences, loaded in "
            f"{ep['load_seconds']:.0f} s) on {ep['gpu']}: AMP "
            f"{'used' if ep['amp'] else 'NOT used'} (outputs {ep['amp_dtypes']}), "
            f"epoch {ep['epoch_seconds']:.1f} s, valid accuracy "
            f"{ep['valid_accuracy']:.3f}")))
    return lines


def plan(args: argparse.Namespace) -> list[str]:
    return ["would run:",
            "  python " + shlex.join(pip_command(args.repo, args.branch)[1:])
            + ("  (skipped: --skip-install)" if args.skip_install else ""),
            f"  the chapter book/{args.chapter} with LAMALIB_PROFILE=quick (nbclient)"
            + ("  (skipped)" if args.skip_chapter else ""),
            "  runtime.setup(), the attention explorer and a tqdm.auto bar, here",
            "  one epoch of bigru_max on sst2, LAMALIB_PROFILE=full, AMP, on CUDA"]


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    if args.dry_run:
        print("\n".join(plan(args)))
        return {}
    seen: dict = {"install": install(args)}
    if seen["install"].get("restart"):
        print(seen["install"]["restart"])
        print("\n".join(summary_lines(seen)))
        return seen  # the rest would run on a broken runtime
    if not args.skip_chapter:
        seen["chapter"] = run_chapter(chapter_path(args))
    seen["widgets"] = show_widgets()
    seen["epoch"] = full_epoch()
    print("\n".join(summary_lines(seen)))
    return seen


if __name__ == "__main__":
    main()
