"""The library's layout (DESIGN, "lamalib: one concept per file"): imports go downward
only, no module imports itself through a cycle, no module exists only to re-export, and
each chapter's folder of ``lamalib.nn`` is a package whose ``__init__`` names what a
reader imports, objects defined in the folder's own modules."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

LAMALIB = Path(__file__).resolve().parents[1] / "lamalib"

# floor -> the floors it must never import (DESIGN: "Imports go downward only")
FORBIDDEN = {
    "nn": {"models", "train", "analysis", "viz", "experiments", "data"},
    "data": {"models", "train", "analysis", "viz", "experiments", "nn", "embeddings"},
    "embeddings": {"models", "train", "analysis", "viz", "experiments", "nn"},
    "train": {"models", "analysis", "viz", "experiments"},
    "models": {"analysis", "viz", "experiments"},
    "viz": {"models", "analysis", "experiments"},
}
CHAPTER_FOLDERS = ["recurrent", "attention", "self_attention", "transformer",
                   "multiscale", "patterns"]


def _modules():
    """{dotted name: path} of every module of lamalib (a package by its own name)."""
    mods = {}
    for path in LAMALIB.rglob("*.py"):
        parts = list(path.relative_to(LAMALIB.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """The lamalib modules that module ``name`` imports (from any line of it)."""
    path = MODULES[name]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1]
                                + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # an object: its module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def test_the_import_helper_sees_relative_and_absolute_imports():
    assert "lamalib.nn.masking" in GRAPH["lamalib.nn.attention.unified"]
    assert "lamalib.nn" in GRAPH["lamalib.models.lama"] or any(
        t.startswith("lamalib.nn.") for t in GRAPH["lamalib.models.lama"])


@pytest.mark.parametrize("floor", sorted(FORBIDDEN))
def test_no_import_runs_up_a_floor(floor):
    up = [(name, target) for name, targets in GRAPH.items()
          if name.split(".")[1:2] == [floor] for target in targets
          if target.split(".")[1] in FORBIDDEN[floor]]
    assert not up, f"lamalib.{floor} imports a higher floor: {up}"


def test_no_import_cycle():
    # a package's __init__ naming its own children is not a cycle; anything else is
    edges = {n: {t for t in ts if not t.startswith(n + ".")} for n, ts in GRAPH.items()}
    state, stack = {}, []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for t in sorted(edges[n]):
            if state.get(t) == "open":
                raise AssertionError("import cycle: "
                                     + " -> ".join(stack[stack.index(t):] + [t]))
            if t not in state:
                visit(t)
        stack.pop()
        state[n] = "done"

    for n in sorted(edges):
        if n not in state:
            visit(n)


def test_no_module_only_re_exports():
    shims = []
    for name, path in MODULES.items():
        if path.name == "__init__.py":
            continue
        body = ast.parse(path.read_text(encoding="utf-8")).body
        code = [n for n in body if not (isinstance(n, ast.Expr)
                                        and isinstance(n.value, ast.Constant))]
        if all(isinstance(n, (ast.Import, ast.ImportFrom))
               or (isinstance(n, ast.Assign)
                   and [getattr(t, "id", "") for t in n.targets] == ["__all__"])
               for n in code):
            shims.append(name)
    assert not shims, f"modules that only re-export: {shims}"


@pytest.mark.parametrize("folder", CHAPTER_FOLDERS)
def test_each_chapter_folder_names_objects_defined_in_it(folder):
    package = importlib.import_module(f"lamalib.nn.{folder}")
    assert package.__doc__ and "chapter" in package.__doc__.lower()
    names = getattr(package, "__all__", None)
    assert names, f"lamalib.nn.{folder}.__init__ names nothing in __all__"
    for name in names:
        obj = getattr(package, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):  # not registries, aliases
            home = obj.__module__
            assert home.startswith(f"lamalib.nn.{folder}."), (name, home)


def test_every_score_is_registered_by_importing_the_package():
    from lamalib.nn.attention.scores import SCORES

    want = {"additive", "concat", "dot", "scaled_dot", "general", "location", "cosine"}
    assert want <= set(SCORES)
