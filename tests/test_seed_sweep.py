"""tools/seed_sweep.py: per-assert pass counts over seeds, on a tiny generated notebook
whose asserts depend on ``LAMALIB_SEED``."""

import json
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import seed_sweep  # noqa: E402


def _notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("A chapter whose asserts depend on the seed."),
        nbformat.v4.new_code_cell(
            "import os\n"
            "seed = int(os.environ.get('LAMALIB_SEED', '0'))\n"
            "%env SEED_SWEEP_TEST=1\n"  # a magic: the cell is still instrumented
            "assert seed % 2 == 0, 'an odd seed'"),
        nbformat.v4.new_code_cell(
            "for i in range(3):\n"
            "    assert i < 2 or seed < 3  # in a loop: passes only if every pass does\n"
            "if seed == 1:\n"
            "    raise ValueError('boom')\n"
            "assert seed >= 0"),
        nbformat.v4.new_code_cell(
            "def never_called():\n"
            "    assert False  # inside a def: not a check of the notebook\n"
            "from myst_nb import glue\n"
            "glue('half_seed', seed / 2, display=False)\n"
            "reached = True\n"
            "assert reached and os.environ['SEED_SWEEP_TEST'] == '1'"),
        nbformat.v4.new_code_cell(
            "for j in range(3):\n"
            "    assert j > 0 or seed < 3  # fails first, then passes: still a failure\n"
            "class Settings:\n"
            "    width = 2 * seed\n"
            "    assert width != 4, 'a class body runs with the cell'\n"
            "    def method(self):\n"
            "        assert False  # inside a method: not a check of the notebook\n"
            "assert Settings.width >= 0"),
    ]
    out = path / "tiny.ipynb"
    nbformat.write(nb, out)
    return out


def test_parse_seeds():
    assert seed_sweep.parse_seeds("0-3") == [0, 1, 2, 3]
    assert seed_sweep.parse_seeds("0-1,5,7-8") == [0, 1, 5, 7, 8]
    with pytest.raises(Exception):
        seed_sweep.parse_seeds("-1")


def test_instrument_finds_top_level_asserts_only(tmp_path):
    nb = nbformat.read(_notebook(tmp_path), as_version=4)
    instrumented, found = seed_sweep.instrument(nb, str(tmp_path / "r.jsonl"))
    assert [(a["cell"], a["line"]) for a in found] == [(1, 4), (2, 2), (2, 5), (3, 6),
                                                       (4, 2), (4, 5), (4, 8)]
    assert found[0]["source"] == "assert seed % 2 == 0, 'an odd seed'"
    assert instrumented.cells[0].cell_type == "code"  # the recorder comes first
    assert len(instrumented.cells) == len(nb.cells) + 1
    assert "assert False" in instrumented.cells[4].source  # the def's assert is kept
    assert "assert False" in instrumented.cells[5].source  # and the method's


def test_counts_per_assert_and_later_cells_still_run(tmp_path, capsys):
    notebook = _notebook(tmp_path)
    out = tmp_path / "sweep.json"
    assert seed_sweep.main([str(notebook), "--seeds", "0-3", "--jobs", "2",
                            "--kernels", "native", "--timeout", "120",
                            "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    rows = {(a["cell"], a["line"]): a for a in result["asserts"]}
    # seeds 0 and 2 even
    assert rows[(1, 4)]["passed"] == 2 and rows[(1, 4)]["failed_seeds"] == [1, 3]
    # i = 2 fails the loop's assert for seed 3 only
    assert rows[(2, 2)]["passed"] == 3 and rows[(2, 2)]["failed_seeds"] == [3]
    # seed 1 raises before the last assert of its cell: not reached, not passed
    assert rows[(2, 5)]["passed"] == 3 and rows[(2, 5)]["not_reached_seeds"] == [1]
    # a failing assert (seeds 1, 3) and a cell error (seed 1) do not stop later cells
    assert rows[(3, 6)]["passed"] == 4
    # a failure on the loop's first pass stands, though the later passes pass
    assert rows[(4, 2)]["passed"] == 3 and rows[(4, 2)]["failed_seeds"] == [3]
    # the class body's assert is a check (seed 2: width 4) and does not stop the cell
    assert rows[(4, 5)]["passed"] == 3 and rows[(4, 5)]["failed_seeds"] == [2]
    assert "a class body runs" in rows[(4, 5)]["messages"]["2"]
    assert rows[(4, 8)]["passed"] == 4
    runs = {r["seed"]: r for r in result["runs"]}
    assert runs[1]["cell_errors"] == {"2": "ValueError: boom"}
    assert not any(runs[s]["cell_errors"] for s in (0, 2, 3))
    assert runs[1]["cell_errors"].keys() == {"2"}
    assert "an odd seed" in rows[(1, 4)]["messages"]["1"]
    assert result["seeds"] == [0, 1, 2, 3] and result["kernels"] == "native"
    table = capsys.readouterr().out
    assert "| 1 | 4 | `assert seed % 2 == 0, 'an odd seed'` | 2/4 ** | 1, 3 |" in table
    assert runs[3]["glue"] == {"half_seed": "1.5"}  # the glued values, per seed
    assert result["complete"] and result["finished"]
    # no folder of this machine in it (tests/test_machine_paths.py)
    assert str(tmp_path) not in out.read_text() and "/tmp" not in out.read_text()
    assert result["notebook"] == "tiny.ipynb"
    assert result["command"] == ("python tools/seed_sweep.py tiny.ipynb --seeds 0-3 "
                                 "--jobs 2 --kernels native --timeout 120")
    assert "| 3 | 6 |" in table and "4/4 |" in table
