"""A two-page Jupyter Book built with the project's own _config.yml and the Makefile's
own `book` recipe, for the tests of the book build and of the attention view on a
built page."""

import shutil
import subprocess
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def tiny_book(tmp_path: Path, source: str, after: str = "More text.") -> Path:
    """A book in ``tmp_path/tiny`` whose chapter runs the code cell ``source`` between
    two markdown cells (``after`` is the second)."""
    book = tmp_path / "tiny"
    (book / "book").mkdir(parents=True)
    shutil.copy(ROOT / "_config.yml", book / "_config.yml")
    shutil.copy(ROOT / "book" / "references.bib", book / "book" / "references.bib")
    shutil.copytree(ROOT / "_ext", book / "_ext")  # the config's local extension
    shutil.copytree(ROOT / "_static", book / "_static")  # the book's CSS
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                   "- file: book/chapter\n")
    (book / "intro.md").write_text("# Tiny\n\nA page.\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Chapter\n\nText."),
                nbformat.v4.new_code_cell(source), nbformat.v4.new_markdown_cell(after)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, book / "book" / "chapter.ipynb")
    return book


def make_book(book: Path, *args: str) -> subprocess.CompletedProcess:
    """`make book BOOK=book [args]` from the project's Makefile."""
    return subprocess.run(["make", "-s", "-C", str(ROOT), "book", f"BOOK={book}", *args],
                          capture_output=True, text=True, timeout=600)
