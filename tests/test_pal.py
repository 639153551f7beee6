"""Projected Attention Layers: one PAL equals GELU(V^D MH(V^E h)) computed by hand with
nonzero weights; on a tiny random transformers BertModel: a zeroed
up-projection leaves BERT exactly as it was, masked PAL heads stay inside their
pattern's mask and fixed ones spread uniformly over it, gradients reach every PAL
parameter, and attach_pals adds the closed-form number of parameters."""

import math

import pytest
import torch
import transformers

from lamalib.models.bert import BertClassifier
from lamalib.nn.patterns.pal import (PALs, ProjectedAttention, attach_pals, find_bert,
                                     pal_parameter_count)
from lamalib.nn.patterns import Injection, pattern_mask
from lamalib.testing import assert_padding_invariant
from lamalib.viz.explorer import collect_attention

pytestmark = pytest.mark.usefixtures("one_thread")
D, LAYERS, DP, HP = 32, 3, 16, 4  # BERT width and depth; PAL width and heads
INJECT = [Injection(0, "matching"), Injection(1, "previous", "masked"),
          Injection(2, "next", "fixed")]  # head 3 stays free


def tiny_bert(seed=0):
    torch.manual_seed(seed)
    config = transformers.BertConfig(vocab_size=12, hidden_size=D,
                                     num_hidden_layers=LAYERS, num_attention_heads=4,
                                     intermediate_size=64, max_position_embeddings=32)
    return transformers.BertModel(config).eval()


def batch():
    tokens = torch.tensor([[2, 5, 6, 5, 7, 5, 3, 0, 0],
                           [2, 8, 9, 8, 10, 11, 9, 4, 3]])  # (B, T), repeats
    mask = tokens != 0  # (B, T)
    return tokens, mask


def run(bert, tokens, mask):
    out = bert(input_ids=tokens, attention_mask=mask.long())
    return out.last_hidden_state, out.pooler_output


def n_params(module):
    return sum(p.numel() for p in module.parameters())


def _gelu(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))  # the exact GELU, written out


def test_pal_output_is_gelu_of_up_of_heads_of_down_by_hand():
    # PAL(h) = GELU(V^D MH(V^E h)) with every weight nonzero (a zeroed V^D would
    # hide the GELU: GELU(0) = 0), computed head by head with explicit loops.
    torch.manual_seed(0)
    B, T = 2, 5
    pal = ProjectedAttention(D, DP, HP, dropout=0.0).double().eval()
    pal.reset_parameters("bert", std=0.3)
    with torch.no_grad():
        for lin in (pal.down, pal.up, pal.attn.q_proj, pal.attn.k_proj,
                    pal.attn.v_proj):
            lin.bias.normal_(0.0, 0.3)  # nonzero biases too
    h = torch.randn(B, T, D, dtype=torch.double)
    allowed = torch.rand(B, HP, T, T) < 0.6  # (B, H, T, T): a per-head mask
    allowed[..., 0] = True  # every row keeps a cell
    out = pal(h, allowed)
    Dh = DP // HP
    a = pal.attn
    expected = torch.zeros(B, T, D, dtype=torch.double)
    for b in range(B):
        z = h[b] @ pal.down.weight.T + pal.down.bias  # (T, Dp): V^E h
        heads = []
        for i in range(HP):
            rows = slice(i * Dh, (i + 1) * Dh)
            q = z @ a.q_proj.weight[rows].T + a.q_proj.bias[rows]  # (T, Dh)
            k = z @ a.k_proj.weight[rows].T + a.k_proj.bias[rows]
            v = z @ a.v_proj.weight[rows].T + a.v_proj.bias[rows]
            scores = q @ k.T / math.sqrt(Dh)  # (T, T)
            scores = scores.masked_fill(~allowed[b, i], float("-inf"))
            heads.append(torch.softmax(scores, -1) @ v)  # (T, Dh)
        mh = torch.cat(heads, -1)  # (T, Dp): no output matrix
        expected[b] = _gelu(mh @ pal.up.weight.T + pal.up.bias)  # GELU(V^D MH)
    torch.testing.assert_close(out, expected)
    assert (expected < 0).any() and (expected.abs() > 0.1).any()  # GELU's bend shows


def test_zero_up_projection_leaves_bert_exactly_as_it_was():
    bert = tiny_bert()
    tokens, mask = batch()
    with torch.no_grad():
        hidden, pooled = run(bert, tokens, mask)
        pals = attach_pals(bert, DP, HP, INJECT, init="zero_up")
        pals.keep_weights(True)
        hidden_pal, pooled_pal = run(bert, tokens, mask)
    assert pals.attention_weights().shape == (LAYERS, 2, HP, 9, 9)  # the PALs ran
    assert torch.equal(hidden_pal, hidden) and torch.equal(pooled_pal, pooled)
    with torch.no_grad():  # a nonzero PAL does change the output
        pals.layers[0].up.weight.normal_()
        assert not torch.allclose(run(bert, tokens, mask)[0], hidden)
        pals.remove()  # hooks off, PALs out: BERT as it was
        assert not hasattr(bert, "pals")
        assert torch.equal(run(bert, tokens, mask)[0], hidden)


def test_pal_heads_follow_their_patterns():
    bert = tiny_bert()
    attach_pals(bert, DP, HP, INJECT)  # random init: the scores are not uniform
    tokens, mask = batch()
    with torch.no_grad():
        w = collect_attention(bert, lambda: run(bert, tokens, mask))  # (L, B, H, T, T)
    assert w.shape == (LAYERS, 2, HP, 9, 9)
    real_rows = mask[None, :, :, None]  # (1, B, T, 1)
    for head, pattern in ((0, "matching"), (1, "previous")):  # masked, eq. (3)
        allowed = pattern_mask(pattern, tokens, mask)  # (B, T, T)
        assert torch.all(w[:, :, head][:, ~allowed] == 0)  # never outside its mask
        spread = w[:, :, head] * real_rows
        assert not torch.all((spread == 0) | (spread == 1))  # learned, not one-hot
    fixed = pattern_mask("next", tokens, mask).float()  # eq. (2): uniform over cells
    uniform = fixed / fixed.sum(-1, keepdim=True)  # (B, T, T)
    torch.testing.assert_close(w[:, :, 2] * real_rows,
                               (uniform * real_rows[0]).expand_as(w[:, :, 2]))
    assert torch.all(w[:, :, 3][..., ~mask[:, None, :].expand(2, 9, 9)] == 0)  # pads
    assert torch.all(w[:, 0, :, :, 7:] == 0)  # no head ever looks at a pad key


def test_gradients_reach_every_pal_parameter():
    bert = tiny_bert().train()
    pals = attach_pals(bert, DP, HP, INJECT)
    tokens, mask = batch()
    hidden, pooled = run(bert, tokens, mask)
    (hidden[mask].pow(2).mean() + pooled.sum()).backward()
    named = dict(pals.named_parameters())
    assert len(named) == 3 * 2 * LAYERS + 4  # Q, K, V per layer; shared down and up
    for name, p in named.items():
        assert p.grad is not None and p.grad.abs().sum() > 0, name
    assert set(dict(bert.named_parameters())) >= {f"pals.{n}" for n in named}


@pytest.mark.parametrize("shared", [True, False])
def test_attach_adds_the_closed_form_number_of_parameters(shared):
    bert = tiny_bert()
    before = n_params(bert)
    attach_pals(bert, DP, HP, INJECT, shared_projections=shared)
    added = n_params(bert) - before
    # Per layer Q, K, V of the PAL (Dp x Dp weights + biases; no output matrix);
    # down (D -> Dp) and up (Dp -> D) with biases, once if shared, else per layer.
    qkv, projections = 3 * (DP * DP + DP), D * DP + DP + DP * D + D
    expected = LAYERS * qkv + (projections if shared else LAYERS * projections)
    assert added == expected == pal_parameter_count(D, LAYERS, DP, HP, shared)
    # Li et al.'s PALs on bert-base: width 256, 4 heads, 12 layers of width 768.
    assert pal_parameter_count(768, 12, 256, 4) == 12 * 3 * (256 * 256 + 256) + (
        2 * 768 * 256 + 256 + 768)


def test_a_bert_classifier_with_pals_stays_padding_invariant_and_trains():
    torch.manual_seed(0)
    model = BertClassifier(12, 3, pretrained_name=None, hidden=D, layers=2, heads=4,
                           intermediate=64, max_positions=32)
    tokens, mask = batch()
    plain = run(model.bert.eval(), tokens, mask)[0]  # (B, T, D)
    pals = attach_pals(model, DP, HP, INJECT)
    assert find_bert(model) is model.bert and isinstance(model.bert.pals, PALs)
    for pal in pals.layers:  # large PAL weights, so that a pad it read would show
        pal.reset_parameters("bert", std=0.3)
    assert (run(model.bert, tokens, mask)[0] - plain)[mask].abs().mean() > 0.1
    assert_padding_invariant(model, [[2, 5, 6, 5, 3], [2, 7, 3], [2, 8, 8, 9, 10, 3]])
    model.train()
    loss = torch.nn.functional.cross_entropy(model(tokens, mask), torch.tensor([0, 2]))
    loss.backward()
    assert pals.layers[1].attn.q_proj.weight.grad.abs().sum() > 0


def test_clear_errors():
    bert = tiny_bert()
    attach_pals(bert, DP, HP, INJECT)
    with pytest.raises(ValueError, match="already has PALs"):
        attach_pals(bert, DP, HP)
    tokens, mask = batch()
    with pytest.raises(ValueError, match="input_ids"):
        bert(inputs_embeds=torch.randn(2, 9, D), attention_mask=mask.long())
    with pytest.raises(ValueError, match="injection lists for 3 layers"):
        attach_pals(tiny_bert(), DP, HP, [INJECT, INJECT])
    with pytest.raises(TypeError, match="holds no BERT"):
        attach_pals(torch.nn.Linear(3, 3))
    with pytest.raises(ValueError, match="head 5 outside the PAL's heads 0..3"):
        attach_pals(tiny_bert(), DP, HP, [Injection(5, "matching")])
