"""book/references.bib parses as BibTeX (a broken entry stops the whole book build)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_references_parse_and_keys_are_unique():
    pybtex = pytest.importorskip("pybtex.database")
    text = (ROOT / "book" / "references.bib").read_text()
    db = pybtex.parse_string(text, "bibtex")  # raises on a syntax error
    assert len(db.entries) == text.count("\n@") + text.startswith("@")


# The references page's labels (_ext/bib_labels.py): each reads as the text cites it.
LABELLED = r"""
@article{maaten2008,
  author = {van der Maaten, Laurens and Hinton, Geoffrey},
  title = {Visualizing Data using t-SNE}, journal = {JMLR}, year = {2008}}
@book{handbook2001,
  editor = {Smith, Jane and Doe, John and Roe, Richard},
  title = {A Handbook}, publisher = {P}, year = {2001}}
@misc{onlyorg,
  organization = {The Unicode Consortium}, title = {Unicode}, year = {2020}}
@article{one2019,
  author = {Daum{\'e} III, Hal}, title = {T}, journal = {J}, year = {2019}}
@inproceedings{rehurek2010,
  author = {{\v{R}}eh{\r{u}}{\v{r}}ek, Radim and Sojka, Petr},
  title = {Software}, booktitle = {LREC}, year = {2010}}
"""


def _labels(text: str) -> dict:
    pybtex = pytest.importorskip("pybtex.database")
    sys.path.insert(0, str(ROOT / "_ext"))
    from bib_labels import author_year_label

    return {key: author_year_label(entry)
            for key, entry in pybtex.parse_string(text, "bibtex").entries.items()}


def test_labels_keep_the_von_part_the_editors_and_the_accents():
    assert _labels(LABELLED) == {
        "maaten2008": "van der Maaten and Hinton, 2008",  # the von part is the name's
        "handbook2001": "Smith et al., 2001",             # editors when no author
        "onlyorg": "The Unicode Consortium, 2020",
        "one2019": "Daumé III, 2019",
        "rehurek2010": "Řehůřek and Sojka, 2010",         # not \vReh\ru\vrek
    }


def test_no_label_of_the_book_shows_latex():
    labels = _labels((ROOT / "book" / "references.bib").read_text())
    assert labels["rehurek2010gensim"] == "Řehůřek and Sojka, 2010"
    raw = {k: v for k, v in labels.items() if any(c in v for c in "\\{}")}
    assert not raw, f"labels with raw LaTeX: {raw}"
    keyed = {k: v for k, v in labels.items() if v.startswith(k)}
    assert not keyed, f"entries labelled by their key: {keyed}"


def test_the_built_references_page_shows_rehurek(tmp_path):
    """The references page as built by `make book` with the project's config."""
    import shutil
    if shutil.which("make") is None:
        pytest.skip("needs make")
    from tiny_book import make_book, tiny_book

    book = tiny_book(tmp_path, "x = 1", after="Gensim {cite}`rehurek2010gensim`.\n\n"
                     "```{bibliography}\n```\n")
    done = make_book(book)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    page = (book / "_build" / "html" / "book" / "chapter.html").read_text()
    assert page.count("Řehůřek and Sojka, 2010") >= 2, "the citation and the label"
    assert "\\v" not in page and "vReh" not in page
