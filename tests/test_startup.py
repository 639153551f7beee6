"""`python -m lamalib.experiments --help` and every command's --help import no torch
(issue 61: start-up; benchmarks/startup.py measures it): the packages' names are
imported on first use (lamalib.lazy) and the commands import what runs them when they
run."""

import json
import subprocess
import sys

import pytest

from lamalib.models.registry import MODEL_KINDS, available_models, declared_models

COMMANDS = ["run", "reproduce", "vectors", "pretrain", "report", "predict",
            "attention", "evaluate", "models", "seq2seq"]

# one fresh process: each --help (as `python -m lamalib.experiments` runs it), then
# whether torch was imported, and the commands the top-level parser knows
PROBE = """
import contextlib, io, json, runpy, sys
done = {}
for argv in [["--help"]] + [[c, "--help"] for c in %r]:
    sys.argv = ["lamalib.experiments", *argv]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_module("lamalib.experiments", run_name="__main__")
        except SystemExit as exit:
            code = exit.code
    done[" ".join(argv)] = [code, "usage:" in out.getvalue(), "torch" in sys.modules]
print(json.dumps(done))
"""


def test_help_imports_no_torch():
    ran = subprocess.run([sys.executable, "-c", PROBE % (COMMANDS,)],
                         capture_output=True, text=True, check=True)
    done = json.loads(ran.stdout.strip().splitlines()[-1])
    assert set(done) == {"--help", *(f"{c} --help" for c in COMMANDS)}
    for argv, (code, usage, torch) in done.items():
        assert (code, usage) == (0, True), argv
        assert not torch, f"{argv} imported torch"


def test_every_command_is_probed():
    from lamalib.experiments.cli import parser

    [sub] = [a for a in parser()._actions if hasattr(a, "choices") and a.choices
             and "run" in a.choices]
    assert sorted(sub.choices) == sorted(COMMANDS)


@pytest.mark.parametrize("kind", [None, *MODEL_KINDS])
def test_the_models_help_lists_are_those_the_registry_builds(kind):
    assert declared_models(kind) == available_models(kind)


def test_lazy_package_names_are_the_modules_objects():
    from lamalib import data, experiments, train
    from lamalib.data import tokenize
    from lamalib.data.table import load_table
    from lamalib.experiments.runner import run
    from lamalib.train.loop import fit

    assert callable(tokenize) and tokenize("A b") == ["a", "b"]
    assert data.load_table is load_table and experiments.run is run
    assert train.fit is fit and "fit" in dir(train)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        data.nothing
