"""`make book` fails while any chapter's execution fails, on the first build and on every
build after it (a second build used to find nothing out of date and exit 0, publishing
the page with its traceback). Built here on a two-page book with the project's own
_config.yml and the Makefile's own `book` recipe."""

import re
import shutil
import subprocess

import pytest

from tiny_book import ROOT, make_book, tiny_book

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def test_a_failed_chapter_fails_every_build(tmp_path):
    book = tiny_book(tmp_path, "x = 1\nassert x == 2, 'a fact that failed'")
    for attempt in (1, 2):
        result = make_book(book)
        log = result.stdout + result.stderr
        assert result.returncode != 0, f"build {attempt} passed over a failed chapter"
        assert "chapter.ipynb" in log and "a fact that failed" in log
        assert not (book / "_build" / "html" / "book" / "chapter.html").exists()


def test_a_chapter_that_runs_builds(tmp_path):
    book = tiny_book(tmp_path, "from lamalib.viz import glue\nglue('share', 0.6162)",
                 after="The share is {glue:text}`share:.2f` here.")
    result = make_book(book)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    page = (book / "_build" / "html" / "book" / "chapter.html").read_text()
    assert re.search(r"The share is (<[^>]*>)*0\.62(<[^>]*>)* here", page)


def test_a_rebuild_runs_again_when_the_library_results_or_knobs_change(tmp_path, monkeypatch):
    # a chapter that reads a file outside itself (as the chapters read results/), the
    # seed and the data folder: a rebuild after any of them changes shows the new
    # value, not the cached one
    data = tmp_path / "inputs" / "value.txt"
    data.parent.mkdir()
    book = tiny_book(tmp_path, "import os, pathlib\nfrom lamalib.viz import glue\n"
                     f"glue('v', pathlib.Path({str(data)!r}).read_text().strip() + "
                     "'-' + os.environ.get('LAMALIB_SEED', 'none') + "
                     "'-' + os.environ.get('LAMALIB_DATA', 'none'))",
                     after="The value is {glue:text}`v` here.")
    page = book / "_build" / "html" / "book" / "chapter.html"
    monkeypatch.delenv("LAMALIB_SEED", raising=False)
    monkeypatch.delenv("LAMALIB_DATA", raising=False)
    for value, args in (("first", []), ("second", []), ("second", ["LAMALIB_SEED=7"]),
                        ("second", ["LAMALIB_SEED=7", "LAMALIB_DATA=elsewhere"])):
        data.write_text(value)
        result = make_book(book, f"BOOK_INPUTS={data.parent}", *args)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        knobs = dict(a.split("=") for a in args)
        want = f"{value}-{knobs.get('LAMALIB_SEED', 'none')}-{knobs.get('LAMALIB_DATA', 'none')}"
        assert want in page.read_text(), (value, args)


def test_a_run_added_to_results_pending_does_not_rerun_the_book(tmp_path):
    # results/pending/ holds runs of incomplete cells that no chapter reads; a new one
    # there keeps every executed chapter (the glued stamp stays), a new file in results/
    # itself does not
    results = tmp_path / "results"
    (results / "pending").mkdir(parents=True)
    book = tiny_book(tmp_path, "import time\nfrom lamalib.viz import glue\nglue('t', str(time.time_ns()))",
                     after="The stamp is {glue:text}`t` here.")
    page = book / "_build" / "html" / "book" / "chapter.html"

    def stamp():
        result = make_book(book, f"BOOK_INPUTS={results}")
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        return re.search(r"The stamp is (?:<[^>]*>)*(\d+)", page.read_text()).group(1)

    first = stamp()
    (results / "pending" / "run.json").write_text("{}")
    assert stamp() == first
    (results / "run.json").write_text("{}")
    assert stamp() != first


@pytest.mark.parametrize("args, want", [
    ([], "ATEN_CPU_CAPABILITY=avx2 LAMALIB_SEED=unset"),
    (["KERNELS=native"], "ATEN_CPU_CAPABILITY=unset LAMALIB_SEED=unset"),
    (["KERNELS=native", "LAMALIB_SEED=1"], "ATEN_CPU_CAPABILITY=unset LAMALIB_SEED=1"),
])
def test_the_makefile_knobs_reach_the_recipes(args, want, monkeypatch):
    monkeypatch.delenv("LAMALIB_SEED", raising=False)
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx512")  # the knob decides, not the shell
    out = subprocess.run(["make", "-s", "-C", str(ROOT), "print-env", *args],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == want
