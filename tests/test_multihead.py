"""Multi-head attention against torch's own modules and a brute-force loop."""

import math
from functools import partial

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.masking import causal_mask
from lamalib.nn.self_attention.multihead import (MultiHeadAttention, fast_attention,
                                                 scaled_dot_product_attention)

B, H, TQ, TK, D = 3, 4, 5, 7, 16


# masked_softmax computes in float32 (float16-safe), so compare at float32 precision.
close = partial(torch.testing.assert_close, atol=1e-5, rtol=1e-4)


def _leaf(*shape):
    return torch.randn(*shape).requires_grad_()


def _grads(out, *tensors):
    return torch.autograd.grad(out.pow(2).sum(), tensors)


def test_from_scratch_matches_torch_sdpa_outputs_and_grads():
    torch.manual_seed(0)
    q, k, v = _leaf(B, H, TQ, 8), _leaf(B, H, TK, 8), _leaf(B, H, TK, 6)
    mask = torch.rand(B, 1, TQ, TK) > 0.3
    mask[..., 0] = True  # every query keeps at least one key here
    ours, _ = scaled_dot_product_attention(q, k, v, mask)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    close(ours, ref)
    for g_ours, g_ref in zip(_grads(ours, q, k, v), _grads(ref, q, k, v)):
        close(g_ours, g_ref)


def test_weights_match_brute_force_loop():
    torch.manual_seed(1)
    q, k, v = (torch.randn(2, 2, t, 4) for t in (3, 4, 4))
    mask = torch.rand(2, 2, 3, 4) > 0.4
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    for b in range(2):
        for h in range(2):
            for i in range(3):
                keys = [j for j in range(4) if mask[b, h, i, j]]
                scores = [float(q[b, h, i] @ k[b, h, j]) / math.sqrt(4) for j in keys]
                exps = [math.exp(s) for s in scores]
                want = torch.zeros(4)
                for j, e in zip(keys, exps):
                    want[j] = e / sum(exps)
                close(weights[b, h, i], want)
                close(out[b, h, i], want @ v[b, h])


def test_fully_masked_rows_give_zeros_not_nan_in_both_paths():
    torch.manual_seed(2)
    q, k, v = _leaf(B, H, TQ, 8), _leaf(B, H, TK, 8), _leaf(B, H, TK, 8)
    mask = torch.rand(B, H, TQ, TK) > 0.5
    mask[0, :, 1] = False  # query 1 of sequence 0 may look at nothing
    mask[2] = False  # a whole sequence of padding
    slow, weights = scaled_dot_product_attention(q, k, v, mask)
    fast = fast_attention(q, k, v, mask)
    empty = ~mask.any(-1)  # (B, H, TQ)
    assert not torch.isnan(slow).any() and not torch.isnan(fast).any()
    assert (slow[empty] == 0).all() and (weights[empty] == 0).all()
    close(fast, slow)
    for g_fast, g_slow in zip(_grads(fast, q, k, v), _grads(slow, q, k, v)):
        assert torch.isfinite(g_fast).all()
        close(g_fast, g_slow)


def _pair(bias=True):
    torch.manual_seed(3)
    ref = nn.MultiheadAttention(D, H, batch_first=True, bias=bias)
    ours = MultiHeadAttention(D, H, bias=bias)
    ours.load_from_torch(ref)
    return ours, ref


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_matches_nn_multihead_attention_outputs_weights_grads(need_weights, bias):
    ours, ref = _pair(bias)
    query, key, value = _leaf(B, TQ, D), _leaf(B, TK, D), _leaf(B, TK, D)
    real = torch.tensor([[1] * TK, [1] * 4 + [0] * 3, [1] * 2 + [0] * 5]).bool()
    allowed = torch.rand(TQ, TK) > 0.3
    allowed[:, 0] = True
    out, w = ours(query, key, value, mask=allowed, key_padding_mask=real,
                  need_weights=need_weights)
    # torch's masks mean the opposite: True = "ignore this key".
    want, want_w = ref(query, key, value, key_padding_mask=~real, attn_mask=~allowed,
                       need_weights=True, average_attn_weights=False)
    close(out, want)
    if need_weights:
        close(w, want_w)
        close(ours.last_weights, want_w.detach())
    else:
        assert w is None and ours.last_weights is None
    inputs = (query, key, value)
    ours_w = (ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight,
              ours.out_proj.weight)
    g_ours = _grads(out, *inputs, *ours_w)
    g_ref = _grads(want, *inputs, ref.in_proj_weight, ref.out_proj.weight)
    for a, b in zip(g_ours[:3], g_ref[:3]):
        close(a, b)
    # torch's fused in_proj holds our q, k, v weights stacked row-wise.
    close(torch.cat(g_ours[3:6]), g_ref[3])
    close(g_ours[6], g_ref[4])


def test_causal_self_attention_matches_torch():
    ours, ref = _pair()
    x = _leaf(B, TQ, D)
    out, w = ours(x, x, x, mask=causal_mask(TQ), need_weights=True)
    want, _ = ref(x, x, x, attn_mask=~causal_mask(TQ))
    close(out, want)
    assert (w.triu(1) == 0).all()  # no query looked at a later position


def test_mask_shapes_are_equivalent():
    ours, _ = _pair()
    x, y = torch.randn(B, TQ, D), torch.randn(B, TK, D)
    real = torch.rand(B, TK) > 0.3
    real[:, 0] = True
    as_kw, _ = ours(x, y, y, key_padding_mask=real)
    as_4d, _ = ours(x, y, y, mask=real[:, None, None, :])
    as_3d, _ = ours(x, y, y, mask=real[:, None, :].expand(B, TQ, TK))
    close(as_kw, as_4d)
    close(as_kw, as_3d)
    with pytest.raises(ValueError, match="key-padding"):
        ours(x, y, y, mask=torch.ones(TK, dtype=torch.bool))


def test_fully_masked_query_rows_in_module_are_finite():
    ours, _ = _pair()
    x = torch.randn(2, 4, D)
    real = torch.tensor([[True, True, False, False], [False] * 4])
    for need_weights in (False, True):
        out, _ = ours(x, x, x, key_padding_mask=real, need_weights=need_weights)
        assert torch.isfinite(out).all()
        # no key -> zero heads -> the output is just the out-projection's bias
        close(out[1], ours.out_proj.bias.expand(4, D))


def test_dropout_only_in_training_and_bad_head_count():
    torch.manual_seed(4)
    mha = MultiHeadAttention(D, H, dropout=0.5)
    x = torch.randn(2, 6, D)
    mha.eval()
    a, _ = mha(x, x, x)
    b, _ = mha(x, x, x, need_weights=True)
    close(a, b)
    mha.train()
    c, _ = mha(x, x, x)
    assert not torch.allclose(a, c)
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(10, 3)
