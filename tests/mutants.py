"""Apply mutants of the code one at a time, run the test meant to kill each, and revert:
prints killed / SURVIVED per mutant. The lists are tests/mutants_58.py,
tests/mutants_61.py and tests/mutants_63.py; each runs as
``python tests/mutants_NN.py [NAME ...]``.

A mutant is ``(name, file, old, new, test)``: ``old`` must occur once in ``file``; the
file is restored whatever the test does. ``test`` is one pytest node or a tuple of them.
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(mutants, only=()) -> int:
    """Run ``mutants`` (those whose name contains a word of ``only``, if given); the
    number that survived or could not be applied."""
    bad = 0
    for name, file, old, new, test in mutants:
        if only and not any(o in name for o in only):
            continue
        path = ROOT / file
        text = path.read_text()
        if text.count(old) != 1:
            print(f"NOT APPLIED ({text.count(old)} matches): {name}", flush=True)
            bad += 1
            continue
        path.write_text(text.replace(old, new))
        try:
            nodes = [test] if isinstance(test, str) else list(test)
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p",
                                   "no:cacheprovider", *nodes], cwd=ROOT,
                                  capture_output=True, text=True, env=dict(os.environ))
        finally:
            path.write_text(text)
        killed = done.returncode != 0
        bad += not killed
        print(("killed   " if killed else "SURVIVED ") + name, flush=True)
    return bad
