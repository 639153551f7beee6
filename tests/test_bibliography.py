"""book/references.bib parses as BibTeX (a broken entry stops the whole book build)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_references_parse_and_keys_are_unique():
    pybtex = pytest.importorskip("pybtex.database")
    text = (ROOT / "book" / "references.bib").read_text()
    db = pybtex.parse_string(text, "bibtex")  # raises on a syntax error
    assert len(db.entries) == text.count("\n@") + text.startswith("@")
