"""Head importance (lamalib.analysis.heads): a disabled head ranks last under both
estimates; the parts of the Taylor sum relate to the mask gradient as the algebra
says; and both agree with the loss change they estimate."""

import pytest
import torch
import torch.nn.functional as F

from lamalib.analysis.heads import (attention_modules, disable_head, head_importance,
                                    mask_gradient, normalize_per_layer, rank_heads,
                                    taylor_terms, top_heads)
from lamalib.models.te import TEClassifier

pytestmark = pytest.mark.usefixtures("one_thread")


def _model_and_batches(seed=0, n_batches=3):
    torch.manual_seed(seed)
    model = TEClassifier(30, 3, d_model=24, n_heads=4, d_ff=32, n_layers=2,
                         dropout=0.0)
    batches = []
    for _ in range(n_batches):
        tokens = torch.randint(1, 30, (6, 9))
        mask = torch.ones_like(tokens, dtype=torch.bool)
        mask[:3, 6:] = False  # some padding
        tokens[~mask] = 0
        batches.append((tokens, mask, torch.randint(0, 3, (6,))))
    return model, batches


def _loss(model, batch):
    tokens, mask, labels = batch
    return F.cross_entropy(model(tokens, mask), labels)


@pytest.mark.parametrize("method", ["taylor", "mask"])
def test_a_disabled_head_ranks_last(method):
    model, batches = _model_and_batches()
    disable_head(attention_modules(model)[1], 2)
    scores = head_importance(model, batches, _loss, method=method)
    assert scores.shape == (2, 4)
    assert rank_heads(scores)[-1] == (1, 2)
    assert scores[1, 2] == 0 and (scores.flatten() > 0).sum() == 7
    assert top_heads(scores, 1)[1] != (1, 2)


def test_output_and_value_parts_equal_the_mask_gradient():
    # The head's output is linear in its gate, in W_o's columns and in (W_v, b_v):
    # Euler's theorem makes each of those g . theta sums equal d L / d gate.
    model, batches = _model_and_batches(seed=1)
    model.eval()
    terms = taylor_terms(model, batches[0], _loss)
    gate = mask_gradient(model, batches[0], _loss)
    torch.testing.assert_close(terms["out"], gate, rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(terms["v"], gate, rtol=1e-4, atol=1e-6)
    assert not torch.allclose(terms["q"], torch.zeros(2, 4))  # Q, K add their own


def test_mask_gradient_matches_a_finite_difference_of_the_gate():
    model, batches = _model_and_batches(seed=2)
    model.eval()
    model.double()
    attn = attention_modules(model)[0]
    grad = mask_gradient(model, batches[0], _loss)
    eps, h, Dh = 1e-6, 3, attn.d_head
    cols = slice(h * Dh, (h + 1) * Dh)
    with torch.no_grad():
        base = attn.out_proj.weight.clone()
        attn.out_proj.weight[:, cols] *= 1 + eps  # gate 1 + eps on head 3
        up = _loss(model, batches[0])
        attn.out_proj.weight.copy_(base)
        attn.out_proj.weight[:, cols] *= 1 - eps
        down = _loss(model, batches[0])
        attn.out_proj.weight.copy_(base)
    fd = (up - down) / (2 * eps)
    torch.testing.assert_close(grad[0, h].double(), fd, rtol=1e-4, atol=1e-8)


def _head_slices(attn, h):
    """Head h's own parameters: its rows of W_q, W_k, W_v (and biases), its columns
    of W_o (the output bias is shared by all heads)."""
    rows = slice(h * attn.d_head, (h + 1) * attn.d_head)
    own = []
    for lin in (attn.q_proj, attn.k_proj, attn.v_proj):
        own.append((lin.weight, (rows, slice(None))))
        if lin.bias is not None:
            own.append((lin.bias, (rows,)))
    own.append((attn.out_proj.weight, (slice(None), rows)))
    return own


def _scaled_head_loss(model, batch, attn, h, factor):
    """The loss with head h's parameters multiplied by ``factor``."""
    with torch.no_grad():
        saved = [p.clone() for p, _ in _head_slices(attn, h)]
        for p, idx in _head_slices(attn, h):
            p[idx] *= factor
        loss = _loss(model, batch)
        for (p, _), old in zip(_head_slices(attn, h), saved):
            p.copy_(old)
    return loss


def test_taylor_importance_is_the_mean_absolute_first_order_loss_change():
    # Li et al. (2022, sec. 4.2.1) after Molchanov et al. (2019): removing head h
    # (theta_h -> 0) changes the loss by about -g . theta_h, summed over ALL of the
    # head's parameters. g . theta_h is the derivative of the loss along theta_h,
    # d/de L(theta + e theta_h) at e = 0: a central difference of the loss with the
    # head's slices scaled by 1 +- e gives it without any gradient code.
    model, batches = _model_and_batches(seed=4)
    model.eval()
    model.double()
    eps = 1e-6
    ref = torch.zeros(len(batches), 2, 4, dtype=torch.double)
    for b, batch in enumerate(batches):
        for l, attn in enumerate(attention_modules(model)):
            for h in range(4):
                up = _scaled_head_loss(model, batch, attn, h, 1 + eps)
                down = _scaled_head_loss(model, batch, attn, h, 1 - eps)
                ref[b, l, h] = (up - down) / (2 * eps)
    terms = taylor_terms(model, batches[0], _loss)
    torch.testing.assert_close(sum(terms.values()).double(), ref[0], rtol=1e-4,
                               atol=1e-8)
    qk = (terms["q"] + terms["k"]).double()  # what an estimate without Q, K misses
    assert (qk.abs() > 1e-3 * ref[0].abs().max()).any()
    raw = head_importance(model, batches, _loss, method="taylor", normalize=False)
    # the mean over batches of |estimate|: not of its square, not of the signed sum
    torch.testing.assert_close(raw.double(), ref.abs().mean(0), rtol=1e-4, atol=1e-8)
    torch.testing.assert_close(head_importance(model, batches, _loss),
                               normalize_per_layer(raw))


def test_importance_averages_absolute_values_and_normalises_per_layer():
    model, batches = _model_and_batches(seed=3)
    raw = head_importance(model, batches, _loss, method="mask", normalize=False)
    model.eval()
    by_hand = sum(mask_gradient(model, b, _loss).abs() for b in batches) / 3
    torch.testing.assert_close(raw, by_hand)
    normed = normalize_per_layer(raw)
    torch.testing.assert_close(normed.norm(dim=-1), torch.ones(2))
    torch.testing.assert_close(
        head_importance(model, batches, _loss, method="mask"), normed)


def test_importance_leaves_the_training_mode_and_rejects_bad_input():
    model, batches = _model_and_batches()
    model.train()
    head_importance(model, batches[:1], _loss)
    assert model.training
    with pytest.raises(ValueError, match="method"):
        head_importance(model, batches, _loss, method="hessian")
    with pytest.raises(ValueError, match="at least one batch"):
        head_importance(model, [], _loss)
    with pytest.raises(ValueError, match="MultiHeadAttention"):
        attention_modules(torch.nn.Linear(2, 2))


def test_head_heatmap_draws_every_cell_with_a_colorbar():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from lamalib.viz.heads import head_heatmap
    ax = head_heatmap(torch.rand(2, 4), outline=[(0, 1)], title="t")
    assert ax.get_xlabel() == "head" and ax.get_ylabel() == "layer"
    # counted from 1 as the view and the book count
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3", "4"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "2"]
    assert len(ax.texts) == 8 and len(ax.patches) == 1
    # outline's (0, 1) is the library's index: the cell of layer 1, head 2
    assert ax.patches[0].get_xy() == (0.5, -0.5)
    assert len(ax.figure.axes) == 2  # the colorbar
    plt.close(ax.figure)
