"""How long each page of the built book is, as a reader meets it: the characters of its
text (the article's text, code and outputs included, whitespace runs counted as one)
and, with Chromium, its screens (the article's height over a 1300 x 1000 window's).
The course's reader's length for a chapter is at most 100,000 characters.

    python tools/page_lengths.py _build/html                  # every page
    python tools/page_lengths.py _build/html --pages 'book/[01]*.html' --max 100000
    python tools/page_lengths.py --build book/06_transformer.ipynb
        # builds a book of that one chapter in a temporary folder (the project's
        # _config.yml, extensions, CSS, figures and references; the chapter runs in
        # the current profile) and measures it: for one page, without `make book`

Exit code 1 when a page is over ``--max`` characters (default: no limit), 2 when the
folder or the chapter is missing or the build fails.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
SKIP_PAGES = {"search.html", "genindex.html", "py-modindex.html"}


def page_text(html: str) -> str:
    """The article's text as a reader reads it (scripts and styles left out)."""
    soup = BeautifulSoup(html, "html.parser")
    body = (soup.select_one("article.bd-article") or soup.find("main") or soup.body
            or soup)
    for element in body.select("script, style, .headerlink"):
        element.decompose()
    return " ".join(body.get_text(" ").split())


def screens(pages: list[Path]) -> dict[Path, float]:
    """Each page's article height in 1000 px screens (Chromium at 1300 px), or {}."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from check_layout import browser
        driver = browser(1300)
    except (ImportError, FileNotFoundError):
        return {}
    found = {}
    try:
        for page in pages:
            driver.get(page.resolve().as_uri())
            found[page] = driver.execute_script(
                "const a = document.querySelector('article.bd-article') || document.body;"
                "return a.scrollHeight / window.innerHeight;")
    finally:
        driver.quit()
    return found


def build_one(chapter: Path, where: Path) -> Path:
    """A book of the one chapter ``chapter`` built in ``where``; its html folder."""
    book = where / "one"
    if book.exists():
        shutil.rmtree(book)
    (book / "book").mkdir(parents=True)
    for name in ("_config.yml", "_ext", "_static"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, book / name)
    shutil.copy(ROOT / "book" / "references.bib", book / "book" / "references.bib")
    if (ROOT / "book" / "figures").is_dir():
        shutil.copytree(ROOT / "book" / "figures", book / "book" / "figures")
    shutil.copy(chapter, book / "book" / chapter.name)
    (book / "intro.md").write_text("# One chapter\n\nBuilt to measure it.\n")
    (book / "_toc.yml").write_text(f"format: jb-book\nroot: intro\nchapters:\n"
                                   f"- file: book/{chapter.stem}\n")
    jb = Path(sys.executable).with_name("jupyter-book")
    done = subprocess.run([str(jb if jb.exists() else "jupyter-book"), "build",
                           str(book), "--builder", "html"], capture_output=True,
                          text=True)
    if done.returncode != 0 or not (book / "_build" / "html").is_dir():
        raise RuntimeError(done.stdout[-3000:] + done.stderr[-3000:])
    return book / "_build" / "html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", help="the built book's html folder")
    parser.add_argument("--build", help="a chapter notebook to build alone and measure")
    parser.add_argument("--pages", nargs="*", help="glob patterns of pages under SITE "
                        "(default: every page)")
    parser.add_argument("--no-screens", action="store_true",
                        help="characters only (no browser)")
    parser.add_argument("--keep", help="with --build: build in this folder and keep it")
    parser.add_argument("--max", type=int, help="fail on a page over this many characters")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.build:
            chapter = Path(args.build)
            if not chapter.is_file():
                print(f"error: --build {chapter}: no such notebook", file=sys.stderr)
                return 2
            try:
                where = Path(args.keep) if args.keep else Path(tmp)
                where.mkdir(parents=True, exist_ok=True)
                site = build_one(chapter.resolve(), where)
            except RuntimeError as error:
                print(f"error: the one-chapter book did not build:\n{error}",
                      file=sys.stderr)
                return 2
            pages = [site / "book" / f"{chapter.stem}.html"]
        else:
            if not args.site or not Path(args.site).is_dir():
                print(f"error: {args.site}: no such folder; build the book first "
                      "(make book) or pass --build CHAPTER", file=sys.stderr)
                return 2
            site = Path(args.site)
            pages = sorted(p for p in [*site.glob("*.html"), *site.glob("book/*.html")]
                           if p.name not in SKIP_PAGES)
            if args.pages:
                pages = [p for p in pages if any(p.relative_to(site).match(g)
                                                 for g in args.pages)]
        tall = {} if args.no_screens else screens(pages)
        over = 0
        for page in pages:
            n = len(page_text(page.read_text(encoding="utf-8")))
            height = f", {tall[page]:.0f} screens" if page in tall else ""
            flag = ""
            if args.max and n > args.max:
                over += 1
                flag = f"  over {args.max:,}"
            print(f"{page.relative_to(site).as_posix()}: {n:,} characters{height}{flag}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
