"""Every ``show_source(...)`` in the book reaches the page.

A notebook cell displays only the value of its last expression, so a
``show_source(A)`` followed by more code renders nothing. A call is shown when it is
the cell's last statement (and no ``;`` silences it) or an argument of ``display``.
"""

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))


def _python(source: str) -> str:
    """The cell with IPython magics and shell escapes (not Python) made ``pass``."""
    return "\n".join(
        line[: len(line) - len(line.lstrip())] + "pass"
        if line.lstrip().startswith(("%", "!")) else line
        for line in source.splitlines()
    )


def hidden_show_source_calls(source: str) -> list[int]:
    """Line numbers of ``show_source`` calls whose output never reaches the page."""
    tree = ast.parse(_python(source))
    shown = set()
    last = tree.body[-1] if tree.body else None
    silenced = source.rstrip().endswith(";")
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and not silenced:
        shown.add(id(last.value))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "display"):
            shown.update(id(arg) for arg in node.args)
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "show_source"
        and id(node) not in shown
    ]


@pytest.mark.parametrize("source,hidden", [
    ("show_source(A)", []),
    ("show_source(A)\nshow_source(B)", [1]),
    ("display(show_source(A))\nshow_source(B)", []),
    ("show_source(A)\nprint(1)", [1]),
    ("show_source(A);", [1]),
    ("for f in (A, B):\n    show_source(f)", [2]),
    ("for f in (A, B):\n    display(show_source(f))", []),
    ("%matplotlib inline\nshow_source(A)", []),
    ("if x:\n    %pip install y\nshow_source(A)", []),
])
def test_the_checker_itself(source, hidden):
    assert hidden_show_source_calls(source) == hidden


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_show_source_reaches_the_page(path):
    cells = json.loads(path.read_text())["cells"]
    problems = [
        f"cell {i}, line {line}"
        for i, cell in enumerate(cells)
        if cell["cell_type"] == "code"
        for line in hidden_show_source_calls("".join(cell["source"]))
    ]
    assert not problems, (
        f"{path.name}: show_source output is dropped at {problems}; make it the "
        "cell's last expression or wrap it in display(...)"
    )
