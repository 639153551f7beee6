"""The chapters' Colab install cell: installs lamalib without upgrading what Colab
provides, and asks for a restart only if pip changed a package already imported."""

import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from lamalib import install_check

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from sync_colab_cell import REPORT, install_cell_source, repository  # noqa: E402


def _report(path, installed):
    items = [{"metadata": {"name": n, "version": v}, "requested": n == "lamalib"}
             for n, v in installed.items()]
    path.write_text(json.dumps({"version": "1", "install": items}))
    return path


def test_restart_message_names_each_changed_package_in_use():
    before = {"numpy": "2.0.2", "PyYAML": "6.0.2", "typing_extensions": ""}
    after = {"numpy": "1.26.4", "pyyaml": "6.0.2", "typing-extensions": "4.12.2",
             "gensim": "4.4.0"}
    line = install_check.restart_message(before, after)
    assert line.count("\n") == 0  # one line
    assert "numpy 2.0.2 -> 1.26.4" in line and "typing_extensions (now 4.12.2)" in line
    assert "PyYAML" not in line and "gensim" not in line  # same version / not in use
    assert "Runtime > Restart session" in line and "run this notebook again" in line


def test_no_message_when_nothing_in_use_changed():
    assert install_check.restart_message({}, {"gensim": "4.4.0"}) is None
    assert install_check.restart_message({"numpy": "2.0.2"}, {}) is None


def test_in_use_maps_imported_modules_to_distributions():
    numpy = types.SimpleNamespace(__version__="2.0.2")
    yaml = types.SimpleNamespace()  # no __version__
    modules = {"numpy": numpy, "numpy.linalg": numpy, "yaml": yaml, "gone": None}
    top_levels = {"numpy": ["numpy"], "yaml": ["PyYAML"], "gensim": ["gensim"]}
    got = install_check.in_use(["numpy", "pyyaml", "gensim", "scipy"], modules,
                               top_levels)
    assert got == {"numpy": "2.0.2", "pyyaml": ""}


def test_in_use_reads_this_process_by_default():
    import numpy

    assert install_check.in_use(["numpy", "no-such-dist"]) == {
        "numpy": numpy.__version__}


def test_installed_by_pip_reads_a_real_pip_report(tmp_path):
    # The report format of `pip install --report` (pip >= 22.2), version "1".
    path = _report(tmp_path / "r.json", {"lamalib": "0.1.0", "gensim": "4.4.0"})
    assert install_check.installed_by_pip(path) == {"lamalib": "0.1.0",
                                                   "gensim": "4.4.0"}


def test_restart_hint_prints_for_a_changed_imported_package(tmp_path, capsys):
    import numpy

    path = _report(tmp_path / "r.json", {"lamalib": "0.1.0", "numpy": "1.0.0",
                                         "gensim": "4.4.0"})
    install_check.restart_hint(path)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and f"numpy {numpy.__version__} -> 1.0.0" in out
    _report(path, {"lamalib": "0.1.0", "gensim": "4.4.0"})  # lamalib: imported now
    install_check.restart_hint(path)
    assert capsys.readouterr().out == ""


def test_importing_the_check_loads_no_heavy_package():
    # The cell imports it right after pip: it must not import numpy, torch, ...
    code = ("import sys, lamalib.install_check; "
            "print(sorted({'numpy', 'torch', 'scipy', 'IPython', 'matplotlib'} "
            "& set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"


def test_the_cell_does_not_force_upgrades():
    cell = install_cell_source()
    pip_line = next(line for line in cell.splitlines() if "%pip install" in line)
    for flag in ("-U ", "--upgrade", "--force-reinstall", "eager", "--ignore-inst"):
        assert flag not in pip_line
    assert f"--report {REPORT}" in pip_line
    assert max(len(line) for line in cell.splitlines()) <= 88


# The cell run by IPython itself (magics expanded as in a notebook), in a subprocess
# whose %pip is a stand-in: it "installs" lamalib by making this checkout importable
# and writes the report that real pip would write.
CELL_RUNNER = textwrap.dedent("""
    import json, sys, types
    from IPython.core.interactiveshell import InteractiveShell

    root, installed, colab, present = sys.argv[1], json.loads(sys.argv[2]), \\
        sys.argv[3] == "1", sys.argv[4] == "1"
    import numpy  # a package a runtime has imported before the first cell
    if colab:
        sys.modules["google.colab"] = types.ModuleType("google.colab")
    if not present:
        sys.modules["lamalib"] = None  # find_spec("lamalib") is None: not installed
    shell = InteractiveShell.instance()

    def pip(line):
        print("PIP:", line)
        args = line.split()
        report = args[args.index("--report") + 1]
        items = [{"metadata": {"name": n, "version": v}} for n, v in installed.items()]
        with open(report, "w") as f:
            json.dump({"version": "1", "install": items}, f)
        sys.modules.pop("lamalib", None)
        sys.path.insert(0, root)

    shell.register_magic_function(pip, "line", "pip")
    result = shell.run_cell(sys.stdin.read())
    result.raise_error()
""")


def _run_cell(tmp_path, installed, colab=True, present=False):
    # the cell as written, but with its report in this test's own folder
    cell = install_cell_source().replace(REPORT, str(tmp_path / "pip.json"))
    proc = subprocess.run(
        [sys.executable, "-c", CELL_RUNNER, str(ROOT), json.dumps(installed),
         "1" if colab else "0", "1" if present else "0"],
        input=cell, capture_output=True, text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def numpy_version():
    import numpy

    return numpy.__version__


def test_cell_on_colab_installs_from_the_configured_url_quietly(tmp_path):
    url, branch = repository()
    out = _run_cell(tmp_path, {"lamalib": "0.1.0", "gensim": "4.4.0"})
    pip_line, *rest = out.splitlines()
    assert pip_line == (f'PIP: install -q --report {tmp_path / "pip.json"} '
                        f'"lamalib @ git+{url}@{branch}"')
    assert rest == []  # nothing in use changed: no restart line


def test_cell_on_colab_asks_once_for_a_restart_when_numpy_changed(tmp_path,
                                                                  numpy_version):
    out = _run_cell(tmp_path, {"lamalib": "0.1.0", "numpy": "1.26.4"})
    pip_line, *rest = out.splitlines()
    assert pip_line.startswith("PIP: install")
    assert len(rest) == 1 and f"numpy {numpy_version} -> 1.26.4" in rest[0]
    assert "Runtime > Restart session" in rest[0]


def test_cell_does_nothing_outside_colab_or_when_lamalib_is_there(tmp_path):
    assert _run_cell(tmp_path, {"numpy": "1.26.4"}, colab=False) == ""
    assert _run_cell(tmp_path, {"numpy": "1.26.4"}, colab=True, present=True) == ""
    assert not (tmp_path / "pip.json").exists()  # pip never ran
