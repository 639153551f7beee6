"""Write the Colab install cell at the top of every chapter from ``_config.yml``.

The repository URL lives in one place, ``_config.yml`` (``repository.url``); this script
copies it into the first code cell of each notebook under ``book/``, and
``tests/test_notebooks.py`` fails if any notebook's cell differs. Run it after changing
the URL or adding a chapter: ``python tools/sync_colab_cell.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MARKER = "# Colab: install lamalib if it is missing"


def install_cell_source(config_path: Path = ROOT / "_config.yml") -> str:
    repo = yaml.safe_load(config_path.read_text())["repository"]
    url = f"git+{repo['url']}@{repo.get('branch', 'main')}"
    return (
        f"{MARKER} (a no-op where it is installed).\n"
        "import importlib.util\n\n"
        'if importlib.util.find_spec("lamalib") is None:\n'
        f'    %pip install -q "lamalib @ {url}"'
    )


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


if __name__ == "__main__":
    src = install_cell_source()
    for nb_path in sorted((ROOT / "book").glob("*.ipynb")):
        if sync(nb_path, src):
            print(f"updated {nb_path.relative_to(ROOT)}", file=sys.stderr)
