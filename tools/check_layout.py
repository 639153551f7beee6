"""Look at the built book as a reader does and list what is cut or shrunk: a code box
(a code cell's input or a code block), a table or a code cell's output wider than the
page's text column or than its own box (the reader must scroll sideways, or the end of
the line, the comment that explains it, the columns the prose points to are hidden),
a figure displayed at less
than ``--min-scale`` of its natural width (or of the column, if narrower), and an image
that did not load. Each problem is one line: page, element, what is wrong.

    python tools/check_layout.py _build/html            # every page of the built book
    python tools/check_layout.py _build/html --pages book/02_word_vectors.html

Exit code 1 when a problem is found, 2 when the browser or the folder is missing.
``tests/test_layout_browser.py`` builds a small book with a table made too wide on
purpose and checks that this finds it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

# Runs in the page: the text column is the article's body; every table, code-cell
# output and image inside it is measured in CSS pixels.
MEASURE = """
if (!document.body) return [];
const column = document.querySelector("article.bd-article")
    || document.querySelector("main") || document.body;
const width = column.clientWidth;
const right = column.getBoundingClientRect().right;
const name = el => (el.id ? "#" + el.id : "") + " " + el.tagName.toLowerCase()
    + " near '" + (el.closest("section")?.querySelector("h1,h2,h3")?.innerText
                   || "").slice(0, 60) + "'";
// wider than the column, or than its own box (it scrolls sideways inside a narrower
// box: the reader must scroll to see the end of the line)
const wide = el => el.scrollWidth > el.clientWidth + 1 || el.scrollWidth > width + 1
    || el.getBoundingClientRect().right > right + 1;
const found = [];
const seen = new Set();
// code a reader reads: a code cell's input (whatever it holds: lines, or a table of
// numbered lines) and every code block of the text; each box once
for (const box of column.querySelectorAll(".cell_input, pre")) {
  if (box.closest(".cell_output")) continue;           // an output, below
  const cell = box.closest(".cell_input");
  if (cell && cell !== box && seen.has(cell)) continue;
  if (wide(box)) {
    found.push(["wide code", name(box), box.scrollWidth, Math.min(box.clientWidth, width)]);
    seen.add(cell || box);
  }
}
// tables of the text and of outputs; a table inside code input is code, measured above
for (const table of column.querySelectorAll("table")) {
  if (table.closest(".cell_input")) continue;
  if (table.scrollWidth > width + 1 || table.getBoundingClientRect().right > right + 1)
    found.push(["wide table", name(table), table.scrollWidth, width]);
}
// a code cell's outputs: printed text, HTML output boxes
for (const out of column.querySelectorAll(".cell_output pre, .cell_output .output")) {
  if (wide(out))
    found.push(["wide output", name(out), out.scrollWidth, Math.min(out.clientWidth, width)]);
}
for (const img of column.querySelectorAll("img")) {
  if (!img.complete || img.naturalWidth === 0) {
    found.push(["missing image", name(img) + " " + img.getAttribute("src"), 0, 0]);
    continue;
  }
  const room = Math.min(img.naturalWidth, width);
  if (img.clientWidth < MIN_SCALE * room)
    found.push(["shrunk figure", name(img), img.clientWidth, room]);
}
return found;
"""


def browser(window: int = 1300):
    """A headless Chromium (selenium) at ``window`` CSS pixels wide."""
    from selenium import webdriver

    binary = next(filter(None, map(shutil.which, ["chromium", "chromium-browser",
                                                  "google-chrome"])), None)
    driver_path = shutil.which("chromedriver")
    if not (binary and driver_path):
        raise FileNotFoundError("Chromium and chromedriver are needed (Debian: "
                                "apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", f"--window-size={window},1000",
                "--disable-background-networking", "--disable-component-update"):
        options.add_argument(arg)
    return webdriver.Chrome(service=webdriver.ChromeService(driver_path),
                            options=options)


def check_page(driver, page: Path, min_scale: float = 0.7) -> list[str]:
    """The problems of one built page, one line each."""
    driver.get(page.resolve().as_uri())
    driver.execute_script("document.body && window.scrollTo(0, "
                          "document.body.scrollHeight)")  # lazy images load
    found = driver.execute_script(MEASURE.replace("MIN_SCALE", repr(min_scale)))
    return [f"{page.name}: {kind}: {where.strip()} ({have:.0f} px, room {room:.0f} px)"
            for kind, where, have, room in found]


def pages_of(site: Path) -> list[Path]:
    """The chapter pages of a built book (search, genindex and the like left out)."""
    skip = {"search.html", "genindex.html", "py-modindex.html"}
    return sorted(p for p in [*site.glob("*.html"), *site.glob("book/*.html")]
                  if p.name not in skip)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", help="the built book's html folder (_build/html)")
    parser.add_argument("--pages", nargs="*", help="pages under SITE (default: all)")
    parser.add_argument("--width", type=int, default=1300, help="window width (px)")
    parser.add_argument("--min-scale", type=float, default=0.7)
    args = parser.parse_args(argv)
    site = Path(args.site)
    if not site.is_dir():
        print(f"error: {site}: no such folder; build the book first (make book)",
              file=sys.stderr)
        return 2
    pages = [site / p for p in args.pages] if args.pages else pages_of(site)
    try:
        driver = browser(args.width)
    except FileNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    problems = []
    try:
        for page in pages:
            problems += check_page(driver, page, args.min_scale)
    finally:
        driver.quit()
    print("\n".join(problems) if problems else f"{len(pages)} pages: nothing cut, "
          "shrunk or missing")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
