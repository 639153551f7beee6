"""Read the built book's text as a reader does and list what speaks of the project
instead of the subject, or prints a number raw. Each finding is one line: page, kind,
the words around it.

- **project words**: "issue", "checkout", "this machine", "worktree", "pull request",
  "TODO"/"FIXME": the reader has no issue tracker, no checkout and not our machine;
- **commit hash**: a git commit (7 to 40 hex digits with a letter and a digit, or any
  token after the word "commit"; a number in scientific notation is not one) outside a provenance table (a table with a column
  named commit, hash or provenance, or under a heading that says "Provenance");
- **raw float**: a number printed with six or more decimals ("0.000000", "79.250000"),
  or five that end in zeros: more digits than any measurement of the book supports;
- **raw value in a table**: a table cell that is a Python dict, True, False or None;
- **machine path**: a folder of the machine that built the page (``/tmp/...``,
  ``/home/...``, ``~/...``, ``C:\\...``) in text or in what a cell prints: a page names
  a file as the reader's own machine would, relative or by its name.

Code a reader reads as code (a code cell's input, a code block of the text) is left
out; what a cell prints is in. ::

    python tools/check_book_text.py _build/html
    python tools/check_book_text.py _build/html --allow tools/book_text_allow.txt

``--allow FILE`` names pages (one per line, as ``book/08_lama.html``; ``#`` comments)
whose findings are listed but do not fail the check: pages whose text is still being
edited. Exit code 1 when a page not allowed has a finding, 2 when the folder or the
allow file is missing. Tested on fixture pages in tests/test_check_book_text.py.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

from lamalib.provenance import MACHINE_PATH  # the results files' own detector

PROJECT_WORDS = re.compile(
    r"\b(issues?|checkouts?|this machine|worktrees?|pull requests?|TODO|FIXME)\b",
    re.IGNORECASE)
# a hex token with at least one digit and one letter: 7 to 40 characters
HASH = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
# a number in scientific notation ("1.1920928955078125e-07", "5e07"): its mantissa and
# exponent letter look like hex, but it is a number, not a hash
SCIENTIFIC = re.compile(r"(?<![\w.])\d*\.?\d+e[-+]?\d+(?![\w.])", re.IGNORECASE)
AFTER_COMMIT = re.compile(r"\bcommits?\b[\s:=]*([0-9a-f]{7,40})\b", re.IGNORECASE)
FLOAT = re.compile(r"(?<![\w.])-?\d+\.(\d{5,})(?![\w.])")
RAW_CELL = re.compile(r"^(True|False|None|\{\s*['\"][^'\"]*['\"]\s*:.*\})$", re.DOTALL)
PROVENANCE = re.compile(r"commit|hash|provenance", re.IGNORECASE)
SKIP_PAGES = {"search.html", "genindex.html", "py-modindex.html"}


def _context(text: str, start: int, end: int, width: int = 40) -> str:
    before = text[max(0, start - width):start]
    after = text[end:end + width]
    return " ".join(f"{before}[{text[start:end]}]{after}".split())


def _provenance(element) -> bool:
    """Inside a provenance table, or a section whose heading says "Provenance"."""
    table = element.find_parent("table")
    if table is not None:
        header = table.find("thead") or table.find("tr")
        if header is not None and PROVENANCE.search(header.get_text(" ")):
            return True
    for section in element.find_parents("section"):
        heading = section.find(["h1", "h2", "h3", "h4"])
        if heading is not None and "provenance" in heading.get_text().lower():
            return True
    return False


def _raw_float(digits: str) -> bool:
    return len(digits) >= 6 or digits.endswith("00")


def check_html(html: str, page: str = "page") -> list[str]:
    """The findings of one built page's HTML, one line each."""
    soup = BeautifulSoup(html, "html.parser")
    body = (soup.select_one("article.bd-article") or soup.find("main") or soup.body
            or soup)
    for hidden in body.select("script, style, template, mjx-container, .headerlink"):
        hidden.decompose()  # what the page runs or typesets, not text a reader reads
    for code in body.select(".cell_input, div[class*='highlight-']"):
        if not code.find_parent(class_="cell_output"):  # a cell's printed output stays
            code.decompose()
    found = []
    for node in body.find_all(string=True):
        text = str(node)
        if not text.strip():
            continue
        for m in PROJECT_WORDS.finditer(text):
            found.append(("project word", _context(text, m.start(), m.end())))
        if not _provenance(node):
            spans = {m.span(1) for m in AFTER_COMMIT.finditer(text)}
            numbers = [m.span() for m in SCIENTIFIC.finditer(text)]
            spans |= {m.span() for m in HASH.finditer(text)
                      if not any(a <= m.start() and m.end() <= b for a, b in numbers)}
            for start, end in sorted(spans):
                found.append(("commit hash", _context(text, start, end)))
        for m in MACHINE_PATH.finditer(text):
            found.append(("machine path", _context(text, m.start(), m.end())))
        for m in FLOAT.finditer(text):
            if _raw_float(m.group(1)):
                found.append(("raw float", _context(text, m.start(), m.end())))
    for cell in body.select("td"):
        value = cell.get_text(" ").strip()
        if RAW_CELL.match(value):
            row = " | ".join(c.get_text(" ").strip()
                             for c in cell.find_parent("tr").find_all(["th", "td"]))
            found.append(("raw value in a table", f"{value!r} in row: {row[:100]}"))
    return [f"{page}: {kind}: {where}" for kind, where in found]


def pages_of(site: Path) -> list[Path]:
    """The chapter pages of a built book (search, genindex and the like left out)."""
    return sorted(p for p in [*site.glob("*.html"), *site.glob("book/*.html")]
                  if p.name not in SKIP_PAGES)


def allowed_pages(path: Path) -> set[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return {line for line in lines if line}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", help="the built book's html folder (_build/html)")
    parser.add_argument("--pages", nargs="*", help="pages under SITE (default: all)")
    parser.add_argument("--allow", help="a file of pages whose findings do not fail")
    args = parser.parse_args(argv)
    site = Path(args.site)
    if not site.is_dir():
        print(f"error: {site}: no such folder; build the book first (make book)",
              file=sys.stderr)
        return 2
    allow: set[str] = set()
    if args.allow:
        if not Path(args.allow).is_file():
            print(f"error: --allow {args.allow}: no such file", file=sys.stderr)
            return 2
        allow = allowed_pages(Path(args.allow))
    pages = [site / p for p in args.pages] if args.pages else pages_of(site)
    failing = 0
    for page in pages:
        name = page.relative_to(site).as_posix()
        findings = check_html(page.read_text(encoding="utf-8"), name)
        if findings and name in allow:
            print(f"{name}: {len(findings)} finding(s), allowed while the page is "
                  f"edited ({args.allow}):")
            print("\n".join("  " + f for f in findings))
        elif findings:
            failing += len(findings)
            print("\n".join(findings))
    if failing:
        print(f"{failing} finding(s) on pages not allowed: speak of the subject, print "
              "numbers to the digits they support")
        return 1
    print(f"{len(pages)} pages: no project word, stray commit hash, machine path or "
          "raw number "
          f"(outside {len(allow)} allowed page(s))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
