"""Checks on the book's files; nbval (``make test``) executes the notebooks
themselves."""

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from sync_colab_cell import install_cell_source, is_install_cell  # noqa: E402

NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))


def _cells(path):
    return json.loads(path.read_text())["cells"]


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [ch["file"] for ch in part["chapters"]]
    return files


def test_there_are_notebooks():
    assert NOTEBOOKS, "no chapter notebooks under book/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    dirty = [
        i
        for i, c in enumerate(_cells(path))
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))
    ]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs; run `make strip`"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_code_cell_installs_lamalib_from_the_configured_url(path):
    first = next(c for c in _cells(path) if c["cell_type"] == "code")
    assert is_install_cell(first), f"{path.name}: run `python tools/sync_colab_cell.py`"
    assert "".join(first["source"]) == install_cell_source(), (
        f"{path.name}: install cell is out of date with _config.yml; run `make sync`"
    )


def test_install_cell_uses_the_one_url_in_config():
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    assert f"git+{url}@" in install_cell_source()


def test_toc_and_book_agree():
    listed = _toc_files()
    for f in listed:
        assert any((ROOT / f"{f}{ext}").exists() for ext in (".md", ".ipynb")), f
    for nb in NOTEBOOKS:
        assert f"book/{nb.stem}" in listed, f"{nb.name} is not in _toc.yml"


def test_every_citation_is_in_the_bibliography():
    bib = (ROOT / "book" / "references.bib").read_text()
    keys = set(re.findall(r"@\w+\{([^,]+),", bib))
    cited = set()
    for path in list(NOTEBOOKS) + sorted((ROOT / "book").glob("*.md")):
        text = path.read_text()
        for group in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", text):
            cited |= {k.strip() for k in group.split(",")}
    assert cited, "no citations found"
    assert not cited - keys, f"cited but not in references.bib: {sorted(cited - keys)}"
