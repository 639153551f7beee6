"""Citations read as the references page labels them: every entry's label is what the
text prints for it ("Guo et al., 2020"), checked on a small book built with the
project's config; and a narrative citation never prints the authors twice
("Guo et al. {cite}`guo2020multiscale`" reads "Guo et al. (Guo et al., 2020)": write
{cite:t}`guo2020multiscale`, which prints "Guo et al. (2020)")."""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))

# an author phrase right before a parenthetical citation: "Guo et al.", "Hochreiter and
# Schmidhuber", "Mehta, Rangwala and Ramakrishnan" (not a bold label, not "the Lee corpus")
NAMED = re.compile(r"(?<![\w*])([A-Z][\w'-]+)(?: et al\.|(?:, [A-Z][\w'-]+)* and "
                   r"[A-Z][\w'-]+)?\s+\{cite(?::p)?\}`([^`,]+)`")


def _markdown_of(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _first_authors() -> dict[str, str]:
    pybtex = pytest.importorskip("pybtex.database")
    from bib_labels import author_year_label

    db = pybtex.parse_file(str(ROOT / "book" / "references.bib"))
    return {k: author_year_label(e).split()[0].rstrip(",") for k, e in db.entries.items()}


def twice(markdown: str, first: dict[str, str]) -> list[str]:
    """Narrative citations that print the authors twice: the cited key's first author
    named right before a parenthetical {cite} of it."""
    return [m.group(0) for m in NAMED.finditer(markdown)
            if first.get(m.group(2).strip()) == m.group(1)]


def test_narrative_citations_name_the_authors_once():
    first = _first_authors()
    found = [f"{p.name}: {hit}" for p in sorted((ROOT / "book").glob("*.*"))
             if p.suffix in (".md", ".ipynb") for hit in twice(_markdown_of(p), first)]
    assert not found, "use {cite:t}`key` for a narrative citation:\n" + "\n".join(found)


def test_the_rule_catches_a_name_printed_twice():
    first = _first_authors()
    assert twice("as Guo et al. {cite}`guo2020multiscale` show", first)
    assert twice("Hochreiter and Schmidhuber\n{cite}`hochreiter1997lstm`", first)
    assert not twice("as {cite:t}`guo2020multiscale` show", first)
    assert not twice("the SST-5 data {cite}`guo2020multiscale`", first)
    assert not twice("the Lee corpus {cite}`lee2005empirical`", first)


def test_a_label_is_the_citation_of_its_entry():
    pybtex = pytest.importorskip("pybtex.database")
    from bib_labels import author_year_label

    db = pybtex.parse_file(str(ROOT / "book" / "references.bib"))
    labels = {k: author_year_label(e) for k, e in db.entries.items()}
    assert labels["guo2020multiscale"] == "Guo et al., 2020"
    assert labels["hochreiter1997lstm"] == "Hochreiter and Schmidhuber, 1997"
    assert len(set(labels.values())) == len(labels)  # no two entries share a label


def test_the_built_references_page_labels_entries_as_the_text_cites_them(tmp_path):
    pytest.importorskip("pybtex.database")
    from tiny_book import make_book, tiny_book

    keys = ["guo2020multiscale", "hochreiter1997lstm", "mehta2019lama"]
    book = tiny_book(tmp_path, "1 + 1", after=(
        "Cited: " + "; ".join(f"{{cite}}`{k}`" for k in keys)
        + ".\n\n```{bibliography}\n:filter: docname in docnames\n```\n"))
    done = make_book(book)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    html = (book / "_build" / "html" / "book" / "chapter.html").read_text()
    text = lambda fragment: re.sub(r"<[^>]+>", "", fragment).strip("[] \n")  # noqa
    cited = {i: text(t) for i, t in re.findall(
        r'<a class="reference internal" href="#(id\d+)"[^>]*>(.*?)</a>', html, re.S)}
    labels = {i: text(t) for i, t in re.findall(
        r'<div class="citation" id="(id\d+)"[^>]*>\s*<span class="label">(.*?)'
        r'<span class="fn-bracket">\]', html, re.S)}
    assert sorted(cited.values()) == sorted(["Guo et al., 2020",
                                             "Hochreiter and Schmidhuber, 1997",
                                             "Mehta et al., 2019"]), cited
    for target, shown in cited.items():
        assert labels[target] == shown  # the entry the citation links to
