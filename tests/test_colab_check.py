"""tools/colab_check.py: the parts that run without Colab (the script itself needs a
Colab GPU runtime and a person looking at it; CI has neither)."""

import shutil
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import colab_check  # noqa: E402
from sync_colab_cell import (  # noqa: E402
    REPORT,
    install_cell_source,
    repository,
    sync_check_script,
)


def test_defaults_are_the_configured_repository():
    url, branch = repository()
    assert (colab_check.REPOSITORY, colab_check.BRANCH) == (url, branch), (
        "run `make sync`")
    args = colab_check.parse_args([])
    assert (args.repo, args.branch) == (url, branch)


def test_sync_rewrites_the_defaults(tmp_path):
    script = tmp_path / "colab_check.py"
    shutil.copy(ROOT / "tools" / "colab_check.py", script)
    assert sync_check_script(script, "https://example.org/me/course", "dev")
    text = script.read_text()
    assert 'REPOSITORY = "https://example.org/me/course"\n' in text
    assert 'BRANCH = "dev"\n' in text
    assert not sync_check_script(script, "https://example.org/me/course", "dev")


def test_installs_exactly_as_the_chapters_cell_does():
    cmd = colab_check.pip_command("https://example.org/x", "main")
    assert cmd[:3] == [sys.executable, "-m", "pip"]
    assert cmd[3:] == ["install", "-q", "--report", REPORT,
                       "lamalib @ git+https://example.org/x@main"]
    cell_pip = next(line for line in install_cell_source().splitlines()
                    if "%pip" in line).split("%pip ", 1)[1]
    assert cell_pip == f'install -q --report {REPORT} "lamalib @ {{url}}"'


def test_changed_lists_only_versions_that_moved():
    before = {"numpy": "2.0.2", "torch": "2.8.0", "gensim": None}
    after = {"numpy": "1.26.4", "torch": "2.8.0", "gensim": "4.4.0"}
    assert colab_check.changed(before, after) == ["gensim None -> 4.4.0",
                                                  "numpy 2.0.2 -> 1.26.4"]
    assert colab_check.changed(before, before) == []


def test_dtype_probe_sees_autocast():
    layer, x = torch.nn.Linear(4, 2), torch.randn(3, 4)
    seen, handle = colab_check.dtype_probe(layer)
    layer.eval()
    layer(x)  # evaluation passes do not count: fit's AMP is about training
    assert seen == set()
    layer.train()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        layer(x)
    assert seen == {torch.bfloat16}
    layer(x)
    assert seen == {torch.bfloat16, torch.float32}
    handle.remove()


def test_summary_reports_what_was_seen():
    seen = {
        "install": {"requirement": "lamalib @ git+u@main", "install": "ok",
                    "install_seconds": 40.2,
                    "before": {"numpy": "2.0.2", "ipywidgets": "7.7.1"},
                    "after": {"numpy": "2.0.2", "ipywidgets": "7.7.1"},
                    "restart": None},
        "chapter": {"chapter": "01_setup.ipynb", "seconds": 51.0, "error": None},
        "widgets": {"ipywidgets": "7.7.1", "widget_manager": False, "colab": True,
                    "notebook": True, "bar": "widget", "setup": ""},
        "epoch": {"dataset": "sst2", "train": 6920, "load_seconds": 2.0,
                  "gpu": "Tesla T4", "amp_dtypes": ["torch.float16"], "amp": True,
                  "epoch_seconds": 9.5, "valid_accuracy": 0.7512},
    }
    text = "\n".join(colab_check.summary_lines(seen))
    assert "pip changed: none of torch, numpy" in text
    assert "restart    : not needed" in text
    assert "custom widget manager off (Colab draws ipywidgets 7 itself)" in text
    assert "progress bar: widget" in text
    assert "01_setup.ipynb (quick) ran in 51 s" in text
    assert "AMP used" in text and "epoch 9.5 s" in text and "0.751" in text
    seen["install"]["after"] = {"numpy": "1.26.4", "ipywidgets": "7.7.1"}
    seen["epoch"] = {"skipped": "no GPU"}
    text = "\n".join(colab_check.summary_lines(seen))
    assert "pip changed: numpy 2.0.2 -> 1.26.4" in text
    assert "full epoch : no GPU" in text


def _script(*args):
    return subprocess.run([sys.executable, str(ROOT / "tools" / "colab_check.py"),
                           *args], capture_output=True, text=True, timeout=60)


def test_help_and_dry_run_do_nothing_else():
    assert _script("--help").returncode == 0
    out = _script("--dry-run", "--repo", "https://example.org/fork", "--branch", "b")
    assert out.returncode == 0, out.stderr
    assert ("python -m pip install -q --report /tmp/lamalib-pip.json "
            "'lamalib @ git+https://example.org/fork@b'") in out.stdout
    assert "book/01_setup.ipynb" in out.stdout and "AMP" in out.stdout


def test_full_epoch_runs_small_on_a_cpu():
    # The GPU run's code path with a small embedded dataset; on a CPU fit uses no AMP,
    # and the probe must say so rather than claim float16.
    seen = colab_check.full_epoch("synthetic_sentiment", device="cpu", n=64)
    assert seen["train"] == 64 and seen["gpu"] == "cpu"
    assert seen["amp"] is False and seen["amp_dtypes"] == ["torch.float32"]
    assert seen["epoch_seconds"] > 0 and 0 <= seen["valid_accuracy"] <= 1
    line = colab_check.summary_lines({"epoch": seen})[-1]
    assert "AMP NOT used" in line


def test_no_gpu_skips_the_epoch(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert "no GPU" in colab_check.full_epoch()["skipped"]


def test_intro_clone_command_follows_the_configured_url(tmp_path):
    from sync_colab_cell import repository, sync_clone_command

    url = repository()[0]
    intro = (ROOT / "book" / "intro.md").read_text()
    name = url.rstrip("/").rsplit("/", 1)[-1]
    assert f"git clone {url} && cd {name}\n" in intro, "run `make sync`"
    copy = tmp_path / "intro.md"
    copy.write_text(intro)
    assert sync_clone_command(copy, "https://github.com/someone/my-course")
    assert "git clone https://github.com/someone/my-course && cd my-course" in (
        copy.read_text())
