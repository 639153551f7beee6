"""The attention view (lamalib.viz.attention_view) in a real browser: headless
Chromium driven by Selenium loads (a) the page the ``attention --html`` command writes
and (b) a notebook that displays views, rendered to HTML by nbconvert. Each page must
make no network request and log no console error; clicking a word must highlight the
model's own row of weights, also after switching layer and head. Skipped, with the
reason, where Chromium, its driver or Selenium is missing (CI installs them: .ci/run).
"""

import json
import shutil
import sys
from pathlib import Path

import pytest
import torch

from lamalib.data import Vocab
from lamalib.models import build_model
from lamalib.models.saved import load_model, save_model

webdriver = pytest.importorskip(
    "selenium.webdriver", reason="the browser tests need selenium (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

BROWSER = next(filter(None, map(shutil.which, ["chromium", "chromium-browser",
                                               "google-chrome"])), None)
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (BROWSER and DRIVER), reason="the browser tests need Chromium and its driver "
    "(Debian: apt-get install chromium chromium-driver)")

# long enough (T = 60: 2 layers x 2 heads x 60 x 60 weights) that the view packs them
TEXT = " ".join(["a warm and funny film , not a dull </script> mess"] * 5 + [
    "the \"end\" & more words than twelve to pass sixty tokens here at last ok"])
LABELS = ["neg", "pos"]
TOL = 0.0005 + 1e-6  # the view rounds to 3 decimals


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=800,1000"):
        options.add_argument(arg)
    # the console (browser) and the DevTools network events (performance)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(DRIVER), options=options)
    yield driver
    driver.quit()


def _saved(folder: Path, name: str, options: dict) -> Path:
    torch.manual_seed(0)
    vocab = Vocab.build([TEXT])
    model = build_model(name, vocab_size=len(vocab), num_classes=len(LABELS),
                        **options).eval()
    return save_model(model, vocab, LABELS, folder / name, name=name, options=options)


def _open(browser, page: Path, views: int, allowed: tuple = ()) -> list:
    """Load ``page``, wait until its ``views`` views are live; check the console and
    the network on the way (``allowed``: URLs the page itself may ask for, and the
    console errors of their failing offline)."""
    browser.get_log("browser"), browser.get_log("performance")  # start afresh
    browser.get(page.as_uri())
    WebDriverWait(browser, 20).until(lambda d: len(d.find_elements(
        By.CSS_SELECTOR, ".lamalib-av[data-live]")) == views)
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"
              and not any(a in e["message"] for a in allowed)]
    assert not errors, f"console errors: {errors}"
    requested = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requested.append(message["params"]["request"]["url"])
    assert requested, "the DevTools log saw no request at all (not even the page)"
    remote = [u for u in requested if not u.startswith(("file:", "data:"))
              and not any(u.startswith(a) for a in allowed)]
    assert not remote, f"network requests: {remote}"
    return browser.find_elements(By.CSS_SELECTOR, ".lamalib-av")


def _shown(view) -> list[float]:
    return [float(t.get_attribute("data-w"))
            for t in view.find_elements(By.CSS_SELECTOR, ".lv-tok")]


def _check_rows(view, weights: torch.Tensor, query: int, cls: str) -> None:
    """Click word ``query`` (of the words of CSS class ``cls``); its row must be what
    is shown, for every layer and head the selectors reach, and it stays pinned."""
    L, H = weights.shape[:2]
    view.find_elements(By.CSS_SELECTOR, f".{cls}")[query].click()
    assert _shown(view) == pytest.approx(weights[0, 0, query].tolist(), abs=TOL)
    for layer, head in [(L - 1, 0), (L - 1, H - 1), (0, H - 1)]:
        Select(view.find_element(By.CSS_SELECTOR, "select.lv-layer")).select_by_value(
            str(layer))
        Select(view.find_element(By.CSS_SELECTOR, "select.lv-head")).select_by_value(
            str(head))
        assert _shown(view) == pytest.approx(weights[layer, head, query].tolist(),
                                             abs=TOL), (layer, head)
    pinned = view.find_elements(By.CSS_SELECTOR, f".{cls}.lv-pinned")
    assert [p.get_attribute("data-i") for p in pinned] == [str(query)]


def _check_self_view(view, weights: torch.Tensor, query: int) -> None:
    """Self-attention: the clicked query word's row over the same words."""
    assert not view.find_element(By.CSS_SELECTOR, ".lv-static").is_displayed()
    _check_rows(view, weights, query, "lv-tok")


def test_the_command_writes_a_page_that_works_offline(browser, tmp_path):
    from lamalib.experiments.cli import main

    folder = _saved(tmp_path, "te", dict(d_model=8, n_heads=2, n_layers=2, d_ff=16))
    page = tmp_path / "attention.html"
    main(["attention", "--model", str(folder), TEXT, "--html", str(page)])
    html = page.read_text(encoding="utf-8")
    assert '"encoding":"zlib"' in html  # this page tests the packed weights
    [view] = _open(browser, page, 1)
    saved = load_model(folder)
    att, [best] = saved.attention(TEXT), saved.predict([TEXT])
    tokens = [t.text for t in view.find_elements(By.CSS_SELECTOR, ".lv-tok")]
    assert tokens == att.tokens and "<" in tokens and "\"" in tokens
    assert f"{best.label} (probability {best.probability:.3f})" in view.text
    _check_self_view(view, att.weights, query=len(tokens) // 2)
    browser.save_screenshot(str(tmp_path / "command_page.png"))
    assert (tmp_path / "command_page.png").stat().st_size > 1000


def test_without_javascript_the_page_is_a_table(browser, tmp_path):
    from lamalib.experiments.cli import main

    folder = _saved(tmp_path, "san", dict(embed_dim=8, hidden_size=6, d_a=5, hops=3,
                                          mlp_size=8))
    page = tmp_path / "attention.html"
    main(["attention", "--model", str(folder), "a warm film", "--html", str(page)])
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(page.as_uri())
        table = browser.find_element(By.CSS_SELECTOR, ".lamalib-av .lv-static table")
        assert table.is_displayed()
        rows = [r.text.split() for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    weights = load_model(folder).attention("a warm film").weights  # (H, T)
    assert [r[0] for r in rows] == ["a", "warm", "film"]
    for t, row in enumerate(rows):  # token, mean, head 1..H
        assert [float(x) for x in row[2:]] == pytest.approx(weights[:, t].tolist(),
                                                           abs=TOL)


def test_a_notebook_rendered_by_nbconvert_works_offline(browser, tmp_path,
                                                        monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    nbclient = pytest.importorskip("nbclient")
    te = _saved(tmp_path, "te", dict(d_model=8, n_heads=2, n_layers=2, d_ff=16))
    san = _saved(tmp_path, "san", dict(embed_dim=8, hidden_size=6, d_a=5, hops=3,
                                       mlp_size=8))
    text = "a warm and funny film , not a dull mess"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from lamalib.models.saved import load_model\n"
        "from lamalib.viz.attention_view import display_attention\n"
        f"text = {text!r}\n"
        f"for folder in [{str(te)!r}, {str(san)!r}]:\n"
        "    saved = load_model(folder)\n"
        "    att, [best] = saved.attention(text), saved.predict([text])\n"
        "    display_attention(att.tokens, att.weights, att.kind, best.label,\n"
        "                      best.probability, title=saved.name)")]
    # the kernel imports this checkout's lamalib
    root = str(Path(__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", root)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    # nbconvert's own template loads require.js and MathJax from a CDN: not here,
    # so that every request the page makes is the view's (none) or the file itself
    exporter = nbconvert.HTMLExporter(require_js_url="", mathjax_url="",
                                      mermaid_js_url="", mermaid_layout_elk_js_url="")
    page = tmp_path / "notebook.html"
    page.write_text(exporter.from_notebook_node(nb)[0], encoding="utf-8")
    views = _open(browser, page, 2)
    ids = [v.get_attribute("id") for v in views]
    assert len(set(ids)) == 2
    te_att = load_model(te).attention(text)
    _check_self_view(views[0], te_att.weights, query=3)
    # pooling: a head's distribution; clicking a word lists its weight in every head
    pool = load_model(san).attention(text).weights  # (H, T)
    view = views[1]
    assert _shown(view) == pytest.approx(pool[0].tolist(), abs=TOL)
    Select(view.find_element(By.CSS_SELECTOR, "select.lv-head")).select_by_value("2")
    assert _shown(view) == pytest.approx(pool[2].tolist(), abs=TOL)
    view.find_elements(By.CSS_SELECTOR, ".lv-tok")[1].click()
    info = view.find_element(By.CSS_SELECTOR, ".lv-info").text
    assert info.startswith("\u201cwarm\u201d in every head: ")
    assert [float(x.split()[-1]) for x in info.split(": ", 1)[1].split(" \u00b7 ")] == (
        pytest.approx(pool[:, 1].tolist(), abs=TOL))
    browser.save_screenshot(str(tmp_path / "notebook_page.png"))
    assert (tmp_path / "notebook_page.png").stat().st_size > 1000
    print("screenshots in", tmp_path, file=sys.stderr)


def test_cross_attention_shows_a_target_words_row_over_the_source(browser, tmp_path):
    """kind "cross": a seq2seq model's weights (target words are the rows, source words
    the columns), and a view with 2 layers x 2 heads for the selectors. Clicking a
    target word must shade the source words with its row."""
    from lamalib.models.seq2seq import Seq2Seq
    from lamalib.viz.attention_view import attention_page, attention_view

    source = ["a", "warm", "</script>", "film", "&", "more"]
    target = ["more", "&", "film", "<b>", "warm", "a", "<eos>"]
    torch.manual_seed(0)
    model = Seq2Seq(20, d_emb=8, d_hidden=8, decoder="bahdanau").eval()
    src = torch.arange(1, len(source) + 1)[None]  # (1, S)
    tgt_in = torch.arange(2, len(target) + 2)[None]  # (1, T)
    with torch.no_grad():
        _, real = model(src, torch.ones_like(src, dtype=torch.bool), tgt_in)  # (1, T, S)
    real = real[None]  # (L = 1, H = 1, T, S)
    many = torch.randn(2, 2, len(target), len(source)).mul(2).softmax(-1)  # (L, H, T, S)
    page = tmp_path / "cross.html"
    page.write_text(attention_page(
        attention_view(source, real, "cross", title="bahdanau", queries=target)
        + attention_view(source, many, "cross", queries=target)), encoding="utf-8")
    views = _open(browser, page, 2)
    for view, weights in zip(views, (real, many)):
        assert not view.find_element(By.CSS_SELECTOR, ".lv-static").is_displayed()
        words = [t.text for t in view.find_elements(By.CSS_SELECTOR, ".lv-qtok")]
        assert words == target
        assert [t.text for t in view.find_elements(By.CSS_SELECTOR, ".lv-tok")] == source
        # no target word chosen: the mean each source word receives (the mean of
        # rounded weights, rounded again: twice the tolerance)
        assert _shown(view) == pytest.approx(weights[0, 0].mean(0).tolist(),
                                             abs=2 * TOL)
    [view, _] = views
    query = 3
    view.find_elements(By.CSS_SELECTOR, ".lv-qtok")[query].click()
    assert _shown(view) == pytest.approx(real[0, 0, query].tolist(), abs=TOL)
    info = view.find_element(By.CSS_SELECTOR, ".lv-info").text
    assert info.startswith("\u201c<b>\u201d looks in the source at ")
    _check_cross_view(views[1], many, query=1)
    browser.save_screenshot(str(tmp_path / "cross_page.png"))
    assert (tmp_path / "cross_page.png").stat().st_size > 1000


def _check_cross_view(view, weights: torch.Tensor, query: int) -> None:
    """Cross-attention: the clicked target word's row over the source words."""
    _check_rows(view, weights, query, "lv-qtok")
    assert not view.find_elements(By.CSS_SELECTOR, ".lv-tok.lv-pinned")


def test_a_built_book_page_works_without_a_kernel(browser, tmp_path):
    """The book as readers get it: a chapter that displays a view, built by `make book`
    with the project's _config.yml. The page makes no remote request at all (MathJax
    is served from the built book: _ext/mathjax_local.py); the view asks for nothing."""
    if shutil.which("make") is None:
        pytest.skip("needs make")
    from tiny_book import make_book, tiny_book

    te = _saved(tmp_path, "te", dict(d_model=8, n_heads=2, n_layers=2, d_ff=16))
    text = "a warm and funny film , not a dull mess"
    book = tiny_book(tmp_path, (
        "from lamalib.models.saved import load_model\n"
        "from lamalib.viz.attention_view import display_attention\n"
        f"saved = load_model({str(te)!r})\n"
        f"att, [best] = saved.attention({text!r}), saved.predict([{text!r}])\n"
        "display_attention(att.tokens, att.weights, att.kind, best.label,\n"
        "                  best.probability, title=saved.name)"))
    built = make_book(book)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    # the theme's own console messages, as a page of the same book without a view
    # logs them, are the book's, not the view's
    browser.get_log("browser")
    browser.get((book / "_build" / "html" / "intro.html").as_uri())
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    theme = tuple(e["message"].split(" ", 2)[-1] for e in browser.get_log("browser")
                  if e["level"] == "SEVERE")
    [view] = _open(browser, book / "_build" / "html" / "book" / "chapter.html", 1,
                   allowed=theme)
    _check_self_view(view, load_model(te).attention(text).weights, query=3)
    browser.save_screenshot(str(tmp_path / "book_page.png"))
    assert (tmp_path / "book_page.png").stat().st_size > 1000


def test_a_pretrained_encoders_page_works_offline(browser, tmp_path, monkeypatch):
    """``attention --model all-MiniLM-L6-v2``: every one of 6 layers and 12 heads of a
    real pretrained encoder, each row transformers' own weights."""
    from lamalib.experiments.cli import main
    from lamalib.models.hf_copies import PACKAGED, packaged_copy
    from lamalib.models.hf_encoder import load_encoder

    if packaged_copy(PACKAGED[0]) is None:
        pytest.skip(f"needs {PACKAGED[0].install}")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    text = "The cat sat on the mat because it was warm."
    page = tmp_path / "minilm.html"
    main(["attention", "--model", "all-MiniLM-L6-v2", text, "--html", str(page)])
    [view] = _open(browser, page, 1)
    att = load_encoder("all-MiniLM-L6-v2").attention(text)
    tokens = [t.text for t in view.find_elements(By.CSS_SELECTOR, ".lv-tok")]
    assert tokens == att.tokens and tokens[0] == "[CLS]" and att.weights.shape[:2] == (
        6, 12)
    _check_self_view(view, att.weights, query=3)


def test_specials_hidden_mean_rollout_start_and_export(browser, tmp_path):
    """A view with [CLS] and [SEP]: it opens on the head asked for; the head menu's
    mean of heads and rollout are lamalib's (the rollout to the hand-checked
    reference of tests/test_rollout.py); hiding special tokens renormalises each row
    over the words; PNG and SVG export the words as shaded."""
    import base64

    from lamalib.nn.self_attention.rollout import attention_rollout
    from lamalib.viz.attention_view import attention_page, attention_view

    torch.manual_seed(0)
    tokens = ["[CLS]", "the", "cat", "sat", "on", "mat", "[SEP]"]
    w = torch.softmax(3 * torch.randn(3, 2, 7, 7), -1)  # (L, H, T, T)
    page = tmp_path / "view.html"
    page.write_text(attention_page(attention_view(tokens, w, "self", start=(1, 1))),
                    encoding="utf-8")
    [view] = _open(browser, page, 1)
    layer = Select(view.find_element(By.CSS_SELECTOR, "select.lv-layer"))
    head = Select(view.find_element(By.CSS_SELECTOR, "select.lv-head"))
    assert (layer.first_selected_option.text, head.first_selected_option.text) == (
        "2", "2")
    assert [o.text for o in head.options] == ["1", "2", "mean of heads", "rollout"]
    assert view.find_element(By.CSS_SELECTOR, ".lv-info").text.startswith(
        "layer 2, head 2:")
    q = 3
    view.find_elements(By.CSS_SELECTOR, ".lv-tok")[q].click()
    assert _shown(view) == pytest.approx(w[1, 1, q].tolist(), abs=TOL)
    head.select_by_visible_text("mean of heads")
    # the mean of weights rounded to thousandths, rounded again: within 0.001
    assert _shown(view) == pytest.approx(w[1, :, q].mean(0).tolist(), abs=2 * TOL)
    rolled = attention_rollout(w)  # (L, T, T)
    for l in range(3):
        layer.select_by_value(str(l))
        head.select_by_visible_text("rollout")
        # the script rolls out the weights it carries, rounded to thousandths
        assert _shown(view) == pytest.approx(rolled[l, q].tolist(), abs=0.003), l
    assert "rollout to layer 3" in view.find_element(By.CSS_SELECTOR, ".lv-info").text
    head.select_by_value("0")
    view.find_element(By.CSS_SELECTOR, ".lv-hide input").click()
    toks = view.find_elements(By.CSS_SELECTOR, ".lv-tok")
    assert [t.is_displayed() for t in toks] == [False] + [True] * 5 + [False]
    carried = torch.round(w[2, 0, q, 1:6] * 1000)  # the thousandths the view carries
    inner = carried / carried.sum()  # renormalised over the words
    shown = _shown(view)
    assert shown[1:6] == pytest.approx(inner.tolist(), abs=TOL)
    assert shown[0] == shown[6] == 0
    svg_text = None
    for kind in ("SVG", "PNG"):
        next(b for b in view.find_elements(By.CSS_SELECTOR, "button.lv-export")
             if b.text == kind).click()
    got = browser.execute_script(
        "return arguments[0].lvExport;", view)
    svg_text, png = got["svg"], got["png"]
    assert svg_text.startswith("<svg") and svg_text.endswith("</svg>")
    assert "[CLS]" not in svg_text and ">cat</text>" in svg_text  # hidden stay hidden
    assert "layer 3, head 1" in svg_text and "rgba(255, 140, 0" in svg_text
    assert png.startswith("data:image/png;base64,")
    raw = base64.b64decode(png.split(",", 1)[1])
    assert raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) > 1000
    (tmp_path / "export.svg").write_text(svg_text, encoding="utf-8")
    browser.get((tmp_path / "export.svg").as_uri())  # the SVG itself renders
    assert browser.find_element(By.TAG_NAME, "svg").size["width"] == 720
