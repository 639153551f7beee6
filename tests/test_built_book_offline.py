"""Formulas render in the built book with the network off: MathJax is copied into the
book's own ``_static/`` at build time (_ext/mathjax_local.py, from the PyPI package
django-static-mathjax), so a reader offline sees typeset maths, not raw TeX. Built here
on a two-page book with the project's own _config.yml and the Makefile's `book` recipe,
then opened in headless Chromium with the network disabled."""

import json
import shutil

import pytest

webdriver = pytest.importorskip(
    "selenium.webdriver", reason="the browser tests need selenium (pip install selenium)")
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

BROWSER = next(filter(None, map(shutil.which, ["chromium", "chromium-browser",
                                               "google-chrome"])), None)
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.skipif(not (BROWSER and DRIVER), reason="the browser tests need Chromium "
                       "and its driver (Debian: apt-get install chromium chromium-driver)"),
    pytest.mark.skipif(shutil.which("make") is None, reason="needs make")]

MATHS = (r"Inline $\alpha_t = \frac{\exp(e_t)}{\sum_j \exp(e_j)}$ and displayed:"
         "\n\n$$\n\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}\\!\\left("
         "\\frac{QK^\\top}{\\sqrt{d_k}}\\right) V\n$$ (eq-attention)\n\nThe end.")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from tiny_book import make_book, tiny_book

    book = tiny_book(tmp_path_factory.mktemp("offline"), "x = 1", after=MATHS)
    done = make_book(book)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return book / "_build" / "html"


@pytest.fixture(scope="module")
def offline_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=1300,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(DRIVER), options=options)
    # the network off, as on a train: any request to a host fails
    driver.set_network_conditions(offline=True, latency=0, download_throughput=0,
                                  upload_throughput=0)
    yield driver
    driver.quit()


def test_the_built_book_carries_its_own_mathjax(built):
    page = (built / "book" / "chapter.html").read_text()
    assert (built / "_static" / "mathjax" / "tex-mml-chtml.js").is_file()
    assert "_static/mathjax/tex-mml-chtml.js" in page
    assert "cdn.jsdelivr" not in page and "mathjax@3" not in page


def test_formulas_render_with_the_network_off(built, offline_browser):
    driver = offline_browser
    driver.get_log("performance")
    driver.get((built / "book" / "chapter.html").as_uri())
    # MathJax replaces each formula's TeX with a typeset <mjx-container>
    WebDriverWait(driver, 30).until(lambda d: d.execute_script(
        "return document.querySelectorAll('mjx-container').length") >= 2)
    shown = driver.execute_script("""
        const boxes = [...document.querySelectorAll('mjx-container')];
        return {n: boxes.length, display: boxes.filter(b => b.getAttribute('display')
                === 'true').length, widths: boxes.map(b => b.getBoundingClientRect().width),
                text: document.querySelector('article').innerText};""")
    assert shown["n"] == 2 and shown["display"] == 1, shown
    assert all(w > 20 for w in shown["widths"]), shown  # typeset, not an empty box
    assert "\\frac" not in shown["text"] and "\\sqrt" not in shown["text"], \
        "raw TeX is visible on the page"
    requested = [json.loads(e["message"])["message"]["params"]["request"]["url"]
                 for e in driver.get_log("performance")
                 if '"Network.requestWillBeSent"' in e["message"]]
    assert any("_static/mathjax/" in u for u in requested), requested
    remote = [u for u in requested if not u.startswith(("file:", "data:"))]
    assert not remote, f"the page asked the network for: {remote}"
