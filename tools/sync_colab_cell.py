"""Write the Colab install cell at the top of every chapter from ``_config.yml``.

The repository URL lives in one place, ``_config.yml`` (``repository.url``); this script
copies it into the first code cell of each notebook under ``book/`` and into the
defaults of ``tools/colab_check.py``, and ``tests/test_notebooks.py`` fails if any of
them differs. Run it after changing the URL or adding a chapter: ``make sync``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MARKER = "# Colab: install lamalib if it is missing"
REPORT = "/tmp/lamalib-pip.json"  # pip's --report: what the install changed
CELL = """\
{marker} (a no-op outside Colab or once installed).
import importlib.util
import sys

if "google.colab" in sys.modules and importlib.util.find_spec("lamalib") is None:
    # pip keeps Colab's torch, numpy, ipywidgets... unless lamalib truly needs others
    url = "git+{url}@{branch}"
    %pip install -q --report {report} "lamalib @ {{url}}"
    from lamalib.install_check import restart_hint  # standard library only

    restart_hint("{report}")  # one line, if pip changed a package in use"""


def repository(config_path: Path = ROOT / "_config.yml") -> tuple[str, str]:
    """``(url, branch)`` of the repository, from ``_config.yml``."""
    repo = yaml.safe_load(config_path.read_text())["repository"]
    return repo["url"], repo.get("branch", "main")


def install_cell_source(config_path: Path = ROOT / "_config.yml") -> str:
    """The first code cell of every chapter.

    On Colab only, and only while lamalib is missing: pip installs it from the
    repository with its default ``--upgrade-strategy only-if-needed``, so what Colab
    ships (torch, numpy, scipy, matplotlib, ipywidgets, IPython) stays unless lamalib's
    declared ranges exclude it; then ``lamalib.install_check.restart_hint`` prints one
    line if pip changed a package the runtime had already imported.
    """
    url, branch = repository(config_path)
    return CELL.format(marker=MARKER, url=url, branch=branch, report=REPORT)


def is_install_cell(cell: dict) -> bool:
    return cell["cell_type"] == "code" and "".join(cell["source"]).startswith(MARKER)


def sync(path: Path, source: str) -> bool:
    """Put the install cell first among the code cells of ``path``; True if it
    changed."""
    nb = json.loads(path.read_text())
    cells = [c for c in nb["cells"] if not is_install_cell(c)]
    first_code = next(
        (i for i, c in enumerate(cells) if c["cell_type"] == "code"), len(cells)
    )
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "id": "colab-install",
        "metadata": {"tags": ["colab"]},
        "outputs": [],
        "source": source.splitlines(keepends=True),
    }
    cells.insert(first_code, cell)
    changed = cells != nb["cells"]
    if changed:
        nb["cells"] = cells
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return changed


def sync_check_script(path: Path, url: str, branch: str) -> bool:
    """Set the ``REPOSITORY`` and ``BRANCH`` defaults of ``tools/colab_check.py``;
    True if it changed."""
    text = path.read_text()
    new = re.sub(r'^REPOSITORY = ".*"$', f'REPOSITORY = "{url}"', text, flags=re.M)
    new = re.sub(r'^BRANCH = ".*"$', f'BRANCH = "{branch}"', new, flags=re.M)
    if new != text:
        path.write_text(new)
    return new != text


def sync_clone_command(path: Path, url: str) -> bool:
    """Set the ``git clone URL && cd NAME`` line of the intro; True if it changed."""
    text = path.read_text()
    name = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    new = re.sub(r"^git clone \S+ && cd \S+$", f"git clone {url} && cd {name}", text,
                 flags=re.M)
    if new != text:
        path.write_text(new)
    return new != text


if __name__ == "__main__":
    src = install_cell_source()
    for nb_path in sorted((ROOT / "book").glob("*.ipynb")):
        if sync(nb_path, src):
            print(f"updated {nb_path.relative_to(ROOT)}", file=sys.stderr)
    if sync_check_script(ROOT / "tools" / "colab_check.py", *repository()):
        print("updated tools/colab_check.py", file=sys.stderr)
    if sync_clone_command(ROOT / "book" / "intro.md", repository()[0]):
        print("updated book/intro.md", file=sys.stderr)
