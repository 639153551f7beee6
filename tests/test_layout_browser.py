"""The layout check of the built book (tools/check_layout.py) on a small book built with
the project's own config: it finds a table made too wide on purpose, a figure shown at
a third of its width and an image that does not load, and passes a narrow table and a
figure at its natural size."""

import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("selenium.webdriver", reason="the browser tests need selenium")
pytestmark = pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="the browser tests need Chromium and its driver (Debian: apt-get install "
    "chromium chromium-driver)")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

SOURCE = '''\
import base64, io
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import HTML, display

display(pd.DataFrame(np.arange(120).reshape(3, 40),
                     columns=[f"a long column name {i}" for i in range(40)]))
display(pd.DataFrame({"narrow": [1, 2]}))
fig = plt.figure(figsize=(4, 2), dpi=100)  # 400 px wide
plt.plot([0, 1])
buf = io.BytesIO()
fig.savefig(buf, format="png", dpi=100)
png = base64.b64encode(buf.getvalue()).decode()
display(HTML(f'<img id="small" src="data:image/png;base64,{png}" style="width:130px">'))
display(HTML(f'<img id="natural" src="data:image/png;base64,{png}">'))
display(HTML('<img id="gone" src="no-such-figure.png">'))
# a printed line that scrolls inside an output box narrower than the column
display(HTML('<div class="output" id="narrowbox" style="width:300px;overflow-x:auto">'
             '<pre id="scrolls" style="white-space:pre;margin:0">' + "0123456789" * 7 + '</pre></div>'))
# a code line longer than the column (the book's CSS wraps it: nothing is hidden) --------------------------------------------------------------------------
x = 1
'''
# a code box that holds its numbered lines in a table, too wide for the column: one
# wide code box, not a wide table
AFTER = ('<div class="cell_input" id="fakecode"><table class="highlighttable"><tr>'
         '<td><pre>1</pre></td><td><pre style="white-space:pre">'
         + "a_long_name = " + "another_long_name + " * 12 + '</pre></td></tr></table></div>'
         "\n\n```python\n" + "x = 1  # " + "an eighty-column line " * 3 + "okay.\n```\n"
         "\nMore text.\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from tiny_book import make_book, tiny_book

    book = tiny_book(tmp_path_factory.mktemp("layout"), SOURCE, after=AFTER)
    done = make_book(book)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return book / "_build" / "html"


def test_the_check_finds_a_wide_table_a_shrunk_figure_and_a_missing_image(built):
    from check_layout import browser, check_page

    driver = browser(1300)
    try:
        problems = check_page(driver, built / "book" / "chapter.html")
    finally:
        driver.quit()
    kinds = [p.split(": ")[1] for p in problems]
    assert kinds.count("wide table") == 1, problems  # the 40 columns, not the narrow one
    assert [p for p in problems if "shrunk figure" in p] and \
        all("#small" in p for p in problems if "shrunk figure" in p), problems
    assert [p for p in problems if "missing image" in p and "#gone" in p], problems
    assert not any("#natural" in p for p in problems), problems
    # the output that scrolls inside its narrower box, though narrower than the column
    assert [p for p in problems if "wide output" in p and "#scrolls" in p], problems
    # the table of numbered lines is code (once), the long code line wraps
    assert [p for p in problems if "wide code" in p] == [
        p for p in problems if "wide code" in p and "#fakecode" in p], problems
    assert kinds.count("wide code") == 1, problems


def test_the_command_exits_1_on_problems_and_0_on_a_clean_page(built, capsys):
    from check_layout import main

    assert main([str(built), "--pages", "book/chapter.html"]) == 1
    assert "wide table" in capsys.readouterr().out
    assert main([str(built), "--pages", "intro.html"]) == 0
    assert main([str(built / "nowhere")]) == 2


def test_an_eighty_column_code_line_fits_the_column_unwrapped(built):
    from check_layout import browser

    driver = browser(1300)
    try:
        driver.get((built / "book" / "chapter.html").as_uri())
        pre = driver.execute_script(
            "const p = [...document.querySelectorAll('pre')].find(e => "
            "e.innerText.includes('an eighty-column line'));"
            "const s = getComputedStyle(p); return [p.innerText.trimEnd().length, "
            "p.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom), "
            "parseFloat(s.lineHeight) || 1.2 * parseFloat(s.fontSize)];")
    finally:
        driver.quit()
    columns, height, line = pre
    assert columns == 80
    assert height < 1.5 * line, f"an 80-column line wraps ({height} px, a line {line} px)"
