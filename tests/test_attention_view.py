"""The attention view's HTML (lamalib.viz.attention_view) without a browser: its size,
its rounding, its escaping, its ids, its errors, and the ``attention --html`` command
(tests/test_attention_view_browser.py drives it in Chromium)."""

import base64
import json
import re
import subprocess
import sys
import zlib

import numpy as np
import pytest
import torch

from lamalib.data import Vocab
from lamalib.models import build_model
from lamalib.models.saved import load_model, save_model
from lamalib.viz.attention_view import attention_page, attention_view, display_attention


def _rows(shape, scale, seed=0):
    """Softmax rows of Gaussian logits: ``scale`` 0 is uniform, larger is peakier."""
    x = np.random.default_rng(seed).normal(size=shape) * scale
    w = np.exp(x)
    return w / w.sum(-1, keepdims=True)


def _spec(fragment: str) -> dict:
    """The data a view carries, with its weights unpacked to thousandths."""
    text = re.search(r'<script type="application/json" id="[^"]+">(.*?)</script>',
                     fragment, re.S).group(1)
    spec = json.loads(text)
    if spec["encoding"] == "zlib":
        planes = np.frombuffer(zlib.decompress(base64.b64decode(spec["w"])), np.uint8)
        n = planes.size // 2
        spec["w"] = (planes[:n].astype(int) | (planes[n:].astype(int) << 8)).tolist()
    return spec


def test_a_100_token_view_with_3_layers_of_8_heads_stays_under_200_kB():
    tokens = [f"word{i}" for i in range(100)]
    # a Transformer's own weights (untrained: near uniform), and peaked rows as
    # trained heads have them
    torch.manual_seed(0)
    model = build_model("te", vocab_size=120, num_classes=2, d_model=32, n_heads=8,
                        n_layers=3, d_ff=32).eval()
    from lamalib.nn.self_attention.collect import collect_attention

    ids = torch.arange(1, 101)[None]
    mask = torch.ones_like(ids, dtype=torch.bool)
    real = collect_attention(model, lambda: model(ids, mask))[:, 0]  # (L, H, T, T)
    assert real.shape == (3, 8, 100, 100)
    for weights in (real, _rows((3, 8, 100, 100), 3.0), _rows((3, 8, 100, 100), 6.0)):
        size = len(attention_view(tokens, weights, "self", "pos", 0.9).encode())
        assert size < 200_000, size


@pytest.mark.parametrize("T", [5, 60])  # a plain list, and a packed one
def test_weights_travel_rounded_to_3_decimals(T):
    w = _rows((2, 3, T, T), 2.0)
    spec = _spec(attention_view([f"t{i}" for i in range(T)], w, "self"))
    assert spec["encoding"] == ("plain" if T == 5 else "zlib")
    assert (spec["L"], spec["H"]) == (2, 3)
    np.testing.assert_array_equal(spec["w"], np.rint(w * 1000).ravel())
    pool = _rows((4, T), 1.0)
    spec = _spec(attention_view([f"t{i}" for i in range(T)], torch.tensor(pool),
                                "pooling"))
    np.testing.assert_array_equal(spec["w"], np.rint(pool * 1000).ravel())


@pytest.mark.parametrize("Tq, T", [(4, 5), (60, 70)])  # a plain list, a packed one
def test_cross_attention_carries_its_target_words_and_rows(Tq, T):
    w = _rows((2, 3, Tq, T), 2.0)  # (L, H, Tq, T): each target word's row
    source, target = [f"s{i}" for i in range(T)], [f"t{i}" for i in range(Tq)]
    spec = _spec(attention_view(source, torch.tensor(w), "cross", queries=target))
    assert spec["encoding"] == ("plain" if Tq == 4 else "zlib")
    assert (spec["kind"], spec["L"], spec["H"]) == ("cross", 2, 3)
    assert spec["tokens"] == source and spec["queries"] == target
    np.testing.assert_array_equal(spec["w"], np.rint(w * 1000).ravel())


def test_without_javascript_cross_attention_is_a_target_by_source_table():
    w = _rows((2, 2, 2, 3), 1.0)  # (L, H, Tq = 2, T = 3)
    page = attention_view(["a", "b", "<c>"], w, "cross", queries=["x", "</y>"])
    table = re.search(r'<div class="lv-static">(.*?)</div>', page, re.S).group(1)
    header = re.findall(r"<th>(.*?)</th>", table)
    assert header == ["target \\ source", "a", "b", "&lt;c&gt;"]
    rows = re.findall(r"<tr><td>(.*?)</td>((?:<td>[^<]*</td>)*)</tr>", table)
    assert [r[0] for r in rows] == ["x", "&lt;/y&gt;"]  # rows: the target words
    mean = np.rint(w * 1000).mean(axis=(0, 1)) / 1000  # (Tq, T): over layers and heads
    for (_, cells), want in zip(rows, mean):
        shown = [float(x) for x in re.findall(r"<td>([^<]*)</td>", cells)]
        np.testing.assert_allclose(shown, want, atol=5e-4 + 1e-9)


def test_tokens_cannot_break_out_of_the_html():
    tokens = ["</script><script>alert(1)</script>", '"quoted"', "it's", "a&b", "<b>"]
    page = attention_view(tokens, _rows((2, 5), 1.0), "pooling", "<i>pos</i>", 0.5,
                          title="</div>")
    assert page.count("</script>") == 2  # the data's and the code's own ends
    assert "<script>alert" not in page and "<i>" not in page
    assert "<td>&lt;b&gt;</td>" in page and "&lt;i&gt;pos&lt;/i&gt;" in page
    assert '<span class="lv-title">&lt;/div&gt;</span>' in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page  # the static table
    assert _spec(page)["tokens"] == tokens  # the data keeps them as they are


def test_every_view_has_ids_of_its_own():
    views = [attention_view(["a", "b"], _rows((1, 1, 2, 2), 1.0), "self")
             for _ in range(3)]
    ids = [re.findall(r'id="([^"]+)"', v) for v in views]
    roots = [found[0] for found in ids]
    assert len(set(roots)) == 3
    for root, found in zip(roots, ids):
        assert all(i.startswith(root) for i in found)
        assert json.dumps(root) in views[roots.index(root)]  # the script names it


def test_the_view_is_self_contained():
    page = attention_view(["a", "b"], _rows((1, 1, 2, 2), 1.0), "self")
    # the SVG export names its XML namespace, an identifier no browser fetches
    assert page.count('"http://www.w3.org/2000/svg"') == 1
    page = page.replace('"http://www.w3.org/2000/svg"', "")
    assert "http" not in page and "src=" not in page and "import(" not in page
    assert 'class="lv-static"' in page  # what a page without JavaScript shows


def test_wrong_shapes_and_kinds_are_clear_errors():
    with pytest.raises(ValueError, match=r"\(L, H, T, T\) with T = 3 tokens, got \(2, 2\)"):
        attention_view(["a", "b", "c"], np.ones((2, 2)), "self")
    with pytest.raises(ValueError, match=r"\(H, T\) with T = 3"):
        attention_view(["a", "b", "c"], np.ones((2, 4)), "pooling")
    with pytest.raises(ValueError, match="kind must be 'self', 'pooling' or 'cross'"):
        attention_view(["a"], np.ones((1, 1)), "heads")
    with pytest.raises(ValueError, match=r"\(L, H, Tq, T\) with Tq = 2 target tokens "
                                         r"and T = 3 source tokens, got \(1, 1, 3, 3\)"):
        attention_view(["a", "b", "c"], np.ones((1, 1, 3, 3)), "cross", queries=["x", "y"])
    with pytest.raises(ValueError, match="give queries .* with kind 'cross', and only"):
        attention_view(["a"], np.ones((1, 1, 1, 1)), "cross")
    with pytest.raises(ValueError, match="give queries .* with kind 'cross', and only"):
        attention_view(["a"], np.ones((1, 1, 1, 1)), "self", queries=["a"])
    with pytest.raises(ValueError, match="NaN"):
        attention_view(["a"], np.full((1, 1), np.nan), "pooling")


def test_display_attention_shows_html(monkeypatch):
    import importlib

    # the module (lamalib.viz's attribute of that name is the function)
    view = importlib.import_module("lamalib.viz.attention_view")

    shown = []
    monkeypatch.setattr(view, "display", shown.append)
    display_attention(["a", "b"], _rows((3, 2), 1.0), "pooling", "pos", 0.75)
    [obj] = shown
    assert "prediction: <b>pos (probability 0.750)</b>" in obj._repr_html_()


def test_a_page_is_a_whole_document():
    page = attention_page(attention_view(["a"], np.ones((1, 1)), "pooling"), "x & y")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert "<title>x &amp; y</title>" in page


def _saved(tmp_path):
    vocab = Vocab.build(["a warm and funny film"])
    torch.manual_seed(0)
    options = dict(embed_dim=8, hidden_size=6, d_a=5, hops=3, mlp_size=8)
    model = build_model("san", vocab_size=len(vocab), num_classes=2, **options)
    return save_model(model.eval(), vocab, ["neg", "pos"], tmp_path / "san",
                      name="san", options=options)


def test_the_command_writes_the_view_to_a_file(tmp_path, capsys):
    from lamalib.experiments.cli import main

    folder = _saved(tmp_path)
    main(["attention", "--model", str(folder), "a warm film", "--html",
          str(tmp_path / "view.html")])
    assert capsys.readouterr().out.startswith(
        f"attention view written to {tmp_path / 'view.html'}")
    page = (tmp_path / "view.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    spec = _spec(page)
    att = load_model(folder).attention("a warm film")
    assert spec["tokens"] == att.tokens == ["a", "warm", "film"]
    np.testing.assert_array_equal(spec["w"], np.rint(att.weights.numpy() * 1000).ravel())


@pytest.mark.parametrize("where, message", [
    ("missing/view.html", "the folder {tmp}/missing does not exist"),
    (".", "--html {tmp}: a folder; give a file name"),
])
def test_a_bad_html_target_is_a_one_line_error(tmp_path, where, message):
    folder = _saved(tmp_path)
    target = tmp_path / where if where != "." else tmp_path
    done = subprocess.run([sys.executable, "-m", "lamalib.experiments", "attention",
                           "--model", str(folder), "a film", "--html", str(target)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: --html ") and message.format(tmp=tmp_path) in line


def test_start_special_tokens_and_the_derived_choices_travel_in_the_spec():
    from lamalib.viz.attention_view import special_positions

    tokens = ["[CLS]", "a", "b", "[SEP]"]
    w = _rows((2, 3, 4, 4), 1.0)
    page = attention_view(tokens, w, "self", start=(1, 2), hide_special=True)
    spec = json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>',
                                page, re.S).group(1))
    assert spec["start"] == [1, 2] and spec["special"] == [0, 3] and spec["hide"]
    assert spec["derived"] == ["mean of heads", "rollout"]
    assert special_positions(["<s>", "x", "</s>", "<pad>", "[UNK]", "[MASK]"]) == [0, 2, 3]
    with pytest.raises(ValueError, match=r"start=\(2, 0\)"):
        attention_view(tokens, w, "self", start=(2, 0))
    # no special token: nothing to hide, the box is not offered
    plain = attention_view(["a", "b"], _rows((1, 1, 2, 2), 1.0), "self",
                           hide_special=True)
    assert '"special":[]' in plain and '"hide":false' in plain


# ---- attention --html --start LAYER,HEAD --hide-special (issue 62) -----------------

MS = dict(embed_dim=8, d_model=8, n_layers=2, n_heads=4, scales="1,3,N/2,N/1",
          mlp_hidden=8)


def _ms_saved(tmp_path):
    """A self-attention model whose tokens hold [CLS]: 2 layers of 4 heads."""
    vocab = Vocab.build(["a warm and funny film"])
    torch.manual_seed(0)
    model = build_model("ms_transformer", vocab_size=len(vocab), num_classes=2, **MS)
    return save_model(model.eval(), vocab, ["neg", "pos"], tmp_path / "ms",
                      name="ms_transformer", options=MS)


def test_the_command_opens_the_view_on_a_head_with_special_tokens_hidden(tmp_path,
                                                                         capsys):
    from lamalib.experiments.cli import main

    folder, page = _ms_saved(tmp_path), tmp_path / "view.html"
    # --start counts from 1 as the view does: 2,4 is the last head, the library's (1, 3)
    main(["attention", "--model", str(folder), "a warm film", "--html", str(page),
          "--start", "2,4", "--hide-special"])
    assert "note:" not in capsys.readouterr().out
    spec = _spec(page.read_text(encoding="utf-8"))
    assert spec["tokens"][0] == "[CLS]" and spec["special"] == [0]
    assert spec["start"] == [1, 3] and spec["hide"] is True
    main(["attention", "--model", str(folder), "a warm film", "--html", str(page),
          "--start", "1,1"])
    assert _spec(page.read_text(encoding="utf-8"))["start"] == [0, 0]  # the first
    main(["attention", "--model", str(folder), "a warm film", "--html", str(page)])
    spec = _spec(page.read_text(encoding="utf-8"))
    assert "start" not in spec and spec["hide"] is False  # the defaults
    # a pooling model: one layer of hops (san: 3), no special token to hide
    main(["attention", "--model", str(_saved(tmp_path)), "a warm film", "--html",
          str(page), "--start", "1,3", "--hide-special"])
    assert "no special token" in capsys.readouterr().out
    assert _spec(page.read_text(encoding="utf-8"))["start"] == [0, 2]


@pytest.mark.parametrize("argv, message", [
    (["--start", "3,1"], "--start 3,1: the model has 2 layers of 4 heads; give "
                         "LAYER,HEAD from 1,1 to 2,4 (counted from 1)"),
    (["--start", "1,5"], "--start 1,5: the model has 2 layers of 4 heads"),
    (["--start", "99,1"], "--start 99,1: the model has 2 layers of 4 heads"),
    (["--start", "0,1"], "--start 0,1: layers and heads are counted from 1, as the "
                         "view shows them; the first head is 1,1"),
    (["--start", "1,0"], "--start 1,0: layers and heads are counted from 1"),
    (["--start", "1"], "--start 1: give LAYER,HEAD, two whole numbers counted from 1"),
    (["--start=-1,0"], "--start -1,0: give LAYER,HEAD"),
    (["--start", "1,2,3"], "--start 1,2,3: give LAYER,HEAD"),
    (["--start", "a,b"], "--start a,b: give LAYER,HEAD"),
])
def test_a_bad_start_is_one_line_and_writes_nothing(tmp_path, argv, message):
    from command_helpers import usage_error

    folder, page = _ms_saved(tmp_path), tmp_path / "view.html"
    assert usage_error(["attention", "--model", str(folder), "a warm film",
                        "--html", str(page), *argv]).startswith(message)
    assert not page.exists()


def test_view_options_without_a_view_or_beyond_a_pooling_model(tmp_path):
    from command_helpers import usage_error

    folder = _ms_saved(tmp_path)
    assert usage_error(["attention", "--model", str(folder), "a film", "--start",
                        "1,1"]) == ("--start shapes the interactive view: add "
                                    "--html FILE")
    assert usage_error(["attention", "--model", str(folder), "a film", "--start",
                        "1,1", "--hide-special"]) == (
        "--start and --hide-special shape the interactive view: add --html FILE")
    assert usage_error(["attention", "--model", str(_saved(tmp_path)), "a film",
                        "--html", str(tmp_path / "v.html"), "--start", "2,1"]) == (
        "--start 2,1: the model has 1 layer of 3 heads; give LAYER,HEAD from 1,1 "
        "to 1,3 (counted from 1)")


def test_a_start_beyond_the_model_exits_2_in_one_line(tmp_path):
    folder = _ms_saved(tmp_path)
    done = subprocess.run([sys.executable, "-m", "lamalib.experiments", "attention",
                           "--model", str(folder), "a film", "--html",
                           str(tmp_path / "v.html"), "--start", "99,1"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: --start 99,1: the model has 2 layers")
    assert done.stderr.count("\n") == 1 and not (tmp_path / "v.html").exists()


def test_a_seq2seq_view_takes_no_head_to_open_on(tmp_path):
    from command_helpers import usage_error
    from lamalib.data.parallel import build_vocabs, pairs_from_lines
    from lamalib.models.saved_seq2seq import save_seq2seq

    src, tgt = build_vocabs(pairs_from_lines(["i run .\ttôi chạy ."]))
    options = {"d_emb": 4, "d_hidden": 6, "decoder": "bahdanau", "score": None}
    model = build_model("rnn_seq2seq", vocab_size=len(src), tgt_vocab_size=len(tgt),
                        **options)
    folder = save_seq2seq(model, src, tgt, tmp_path / "s2s", options)
    assert "no layers, heads or special tokens" in usage_error(
        ["attention", "--model", str(folder), "i run .", "--html",
         str(tmp_path / "v.html"), "--start", "1,1"])
