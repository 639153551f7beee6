"""tools/check_book_text.py on fixture pages shaped as the built book's: it finds
project words, commit hashes outside provenance tables, raw floats and raw values in
tables, and passes the same facts written for a reader."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
pytest.importorskip("bs4")
from check_book_text import check_html, main  # noqa: E402


def page(body: str) -> str:
    return ("<html><body><nav>issue tracker 0de4f93</nav><main><article "
            f'class="bd-article"><section><h1>Chapter</h1>{body}</section></article>'
            "</main></body></html>")


def kinds(body: str) -> list[str]:
    return [line.split(": ")[1] for line in check_html(page(body))]


@pytest.mark.parametrize("text", [
    "A later issue reruns it.", "(no results/ in this checkout)",
    "The machine had neither; this machine had neither.", "TODO: fix",
    "See the pull request."])
def test_project_words_are_found(text):
    assert "project word" in kinds(f"<p>{text}</p>")


@pytest.mark.parametrize("text", [
    "The run at commit 0de4f93 gave it.", "commit: 9069463274",
    "made by 3f2a9c1d7e", "a hash a1b2c3d4e5f60718293a4b5c6d7e8f9012345678 here"])
def test_commit_hashes_outside_provenance_are_found(text):
    assert kinds(f"<p>{text}</p>") == ["commit hash"]


@pytest.mark.parametrize("text", [
    "eps 1.1920928955078125e-07", "float32 eps = 1.1920928955078125E-07.",
    "scale 5e07", "lr 3.0e+04 and 2.5e-3"])
def test_numbers_in_scientific_notation_are_not_hashes(text):
    assert "commit hash" not in kinds(f"<p>{text}</p>")


def test_a_hash_beside_a_number_in_scientific_notation_is_still_found():
    assert kinds("<p>eps 1.1920928955078125e-07 at 3f2a9c1d7e</p>") == ["commit hash"]
    assert kinds("<p>1920928955078125e</p>") == ["commit hash"]


def test_hashes_in_a_provenance_table_or_section_pass():
    table = ("<table><thead><tr><th>folder</th><th>first commit</th></tr></thead>"
             "<tbody><tr><td>msa</td><td>0de4f93</td></tr></tbody></table>")
    assert kinds(table) == []
    section = "<section><h2>Provenance of the runs</h2><p>code 3f2a9c1d7e</p></section>"
    assert kinds(section) == []
    # the same hash in an ordinary table is a stray
    other = "<table><tr><th>model</th></tr><tr><td>0de4f93</td></tr></table>"
    assert kinds(other) == ["commit hash"]


@pytest.mark.parametrize("text, found", [
    ("rho 0.000000", True), ("accuracy 79.250000", True), ("0.123456", True),
    ("-0.5000000", True), ("0.12300", True),
    ("p = 0.0038", False), ("+2.6 [+1.4, +3.8]", False), ("lr 0.00012", False),
    ("1.5e-05", False), ("version 3.2.2.1", False), ("79.25 %", False)])
def test_raw_floats(text, found):
    assert ("raw float" in kinds(f"<p>{text}</p>")) is found


@pytest.mark.parametrize("cell, found", [
    ("True", True), ("False", True), ("None", True), ("{'memory_met': False}", True),
    ("yes", False), ("met", False), ("79.3", False), ("{1, 2}", False)])
def test_raw_values_in_tables(cell, found):
    table = f"<table><tr><th>what</th></tr><tr><td>{cell}</td></tr></table>"
    assert ("raw value in a table" in kinds(table)) is found


@pytest.mark.parametrize("text", [
    "model saved to /tmp/vi_chapter_ihaxwl2m/plain", "read /home/me/data.tsv",
    "vectors in ~/glove.txt", "C:\\Users\\me\\v.txt", "(/work/main/results)"])
def test_machine_paths_are_found(text):
    assert kinds(f"<p>{text}</p>") == ["machine path"]
    printed = ('<div class="cell_output"><div class="output text_plain '
               f'highlight-myst-ansi"><pre>{text}</pre></div></div>')
    assert kinds(printed) == ["machine path"]


@pytest.mark.parametrize("text", [
    "model saved to plain", "results/tmp/run.json", "https://example.org/tmp/x",
    "scales 1/2, N/16", "the train/valid/test split", "a ratio of 3:1"])
def test_paths_a_reader_shares_pass(text):
    assert kinds(f"<p>{text}</p>") == []


def test_words_of_the_subject_and_code_pass():
    body = ("<p>Attention weights sum to one; the GRU keeps a gate.</p>"
            '<p>A model is <em>True</em> to its data.</p>'
            '<div class="cell docutils container"><div class="cell_input">'
            '<pre># the issue: 0.123456 at commit 0de4f93 in /tmp/x/y</pre></div>'
            '<div class="cell_output"><div class="output text_plain highlight-myst-ansi">'
            "<pre>accuracy 0.81</pre></div></div></div>"
            '<div class="highlight-python"><pre>x = 0.1234567  # issue</pre></div>')
    assert kinds(body) == []
    # what a cell prints is checked
    printed = ('<div class="cell_output"><div class="output text_plain '
               'highlight-myst-ansi"><pre>rho 0.000000</pre></div></div>')
    assert kinds(printed) == ["raw float"]
    # what an output runs (a widget's state, a view's script) is not text
    script = ('<div class="cell_output"><script type="application/vnd.jupyter.widget-'
              'view+json">{"model_id": "6cfe619de1c34544b021dadf1bd55e51"}</script>'
              '<script>(function(){})("lamalib-av-8aa8bd5c659a");</script></div>')
    assert kinds(script) == []


def test_the_command_fails_on_findings_unless_the_page_is_allowed(tmp_path, capsys):
    site = tmp_path / "html"
    (site / "book").mkdir(parents=True)
    (site / "intro.html").write_text(page("<p>Clean prose, 0.81.</p>"))
    (site / "book" / "08_lama.html").write_text(page("<p>in this checkout</p>"))
    (site / "search.html").write_text(page("<p>issue</p>"))
    assert main([str(site)]) == 1
    out = capsys.readouterr().out
    assert "book/08_lama.html: project word" in out and "search.html" not in out
    allow = tmp_path / "allow.txt"
    allow.write_text("# being edited\nbook/08_lama.html\n")
    assert main([str(site), "--allow", str(allow)]) == 0
    assert "allowed while the page is edited" in capsys.readouterr().out
    assert main([str(site / "nowhere")]) == 2
    assert main([str(site), "--allow", str(tmp_path / "none.txt")]) == 2
