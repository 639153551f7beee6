"""The attention explorer: what it draws is the weights it was given."""

import numpy as np
import pytest
import torch

from lamalib.data import Vocab
from lamalib.models import build_model
from lamalib.viz.explorer import (
    ALL_QUERIES,
    AttentionExplorer,
    collect_attention,
    examples_from_model,
)


def _weights(L, H, T, seed=0):
    w = np.random.default_rng(seed).random((L, H, T, T))
    return w / w.sum(-1, keepdims=True)  # rows are distributions, like attention


def test_views_read_the_given_weights():
    w = _weights(2, 3, 5)
    ex = AttentionExplorer([("s", list("abcde"), w)])
    np.testing.assert_array_equal(ex.matrix(0, 1, 2), w[1, 2])
    np.testing.assert_allclose(ex.token_weights(0, 1, 2), w[1, 2].mean(0))
    np.testing.assert_array_equal(ex.token_weights(0, 1, 2, query=3), w[1, 2, 3])
    assert ex.heads(0) == (2, 3)
    page = ex.html(0, 1, 2)
    assert "<script" not in page and "http" not in page  # static: no CDN, no JS
    assert all(f">{t}</span>" in page for t in "abcde")
    assert ex.png(0, 1, 2).startswith(b"\x89PNG")


def test_long_inputs_are_capped_with_a_visible_note():
    T = 100
    w = _weights(1, 1, T)
    ex = AttentionExplorer([("long", [f"t{i}" for i in range(T)], w)], max_tokens=64)
    assert ex.matrix(0).shape == (64, 64)
    np.testing.assert_array_equal(ex.matrix(0), w[0, 0, :64, :64])
    assert "first 64 of 100 tokens" in ex.html(0)


def test_bad_shapes_fail_clearly():
    with pytest.raises(ValueError, match=r"\(L, H, T, T\)"):
        AttentionExplorer([("x", ["a", "b"], np.ones((2, 3, 3)))])


class _Handle:
    def __init__(self):
        self.shown = None

    def update(self, obj):
        self.shown = obj


def test_controls_redraw_the_selected_view():
    pytest.importorskip("ipywidgets")
    ex = AttentionExplorer([("one", list("abc"), _weights(2, 2, 3)),
                            ("two", list("wxyz"), _weights(3, 1, 4, seed=1))])
    image, text = _Handle(), _Handle()
    box = ex.controls(image, text)
    pick, layer, head, query = box.children
    assert (layer.value, head.value, layer.min) == (1, 1, 1)  # counted from 1, as pages
    layer.value = 2  # the second layer: index 1
    assert text.shown.data == ex.html(0, 1, 0)
    assert "layer 2, head 1" in text.shown.data
    query.value = 2
    assert text.shown.data == ex.html(0, 1, 0, query=2)
    pick.value = 1  # another example: sliders and queries follow its shape
    assert (layer.max, head.max) == (3, 1)
    assert query.value == ALL_QUERIES and len(query.options) == 1 + 4
    assert text.shown.data == ex.html(1, layer.value - 1, 0)
    assert image.shown.data.startswith(b"\x89PNG")


def test_collect_attention_from_a_model():
    torch.manual_seed(0)
    vocab = Vocab.build(["the film was not good", "a dull plot"])
    model = build_model("self_attention", vocab_size=len(vocab), num_classes=2,
                        d_model=8, n_heads=2, n_layers=3)
    tokens = torch.tensor([vocab.encode("the film was not good")])
    mask = torch.ones_like(tokens, dtype=torch.bool)
    got = collect_attention(model, lambda: model(tokens, mask))
    assert model.keep_weights is False  # the flag is restored
    model.keep_weights = True
    model(tokens, mask)
    torch.testing.assert_close(got, model.attention_weights())
    assert got.shape == (3, 1, 2, 5, 5)
    torch.testing.assert_close(got.sum(-1), torch.ones(3, 1, 2, 5))
    [ex] = examples_from_model(model, vocab, ["the film was not good"])
    assert ex.tokens == ["the", "film", "was", "not", "good"]
    np.testing.assert_allclose(ex.weights, got[:, 0].numpy())
