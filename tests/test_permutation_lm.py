"""The permutation LM: what the query stream sees, partial prediction, padding, the
identity order against the causal LM, and that it learns."""

import math

import pytest
import torch
import torch.nn.functional as F

from lamalib.data import Batch
from lamalib.models.causal_lm import CausalLM
from lamalib.models.permutation_lm import (PermutationLM, PermutationLMStep,
                                           partial_prediction, random_orders)
from lamalib.nn.transformer.two_stream import order_ranks
from tiny_lm_fit import repeated_rows_losses

pytestmark = pytest.mark.usefixtures("one_thread")

V = 30
SIZES = dict(d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, dropout=0.0)


def _model(seed=0, **kw):
    torch.manual_seed(seed)
    return PermutationLM(V, **{**SIZES, **kw}).eval()


@pytest.mark.parametrize("residual", ["pre", "post"])
def test_no_query_stream_position_sees_its_own_token(residual):
    model = _model(residual=residual)
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(3, V, (1, 7), generator=g)
    mask = torch.ones(1, 7, dtype=torch.bool)
    order = random_orders(mask, g)
    rank = order_ranks(order)[0]
    h, q = model.streams(tokens, mask, order)
    for i in range(7):
        changed = tokens.clone()
        changed[0, i] = 3 + (int(tokens[0, i]) - 3 + 1) % (V - 3)  # another token
        h2, q2 = model.streams(changed, mask, order)
        # The query stream at i never depends on x_i, nor do the query streams of
        # positions predicted before i; those predicted after i do.
        blind = rank <= rank[i]
        torch.testing.assert_close(q2[0, blind], q[0, blind], rtol=0, atol=1e-6)
        if (~blind).any():
            assert (q2[0, ~blind] - q[0, ~blind]).abs().amax(-1).min() > 1e-4
        # The content stream at i sees x_i itself.
        assert (h2[0, i] - h[0, i]).abs().max() > 1e-4


def test_streams_start_from_token_and_position_and_from_w_and_position():
    # No layers and post-LN: the streams leave the encoder as they entered it.
    model = _model(residual="post", n_layers=0)
    tokens = torch.tensor([[5, 6, 7, 8]])
    mask = torch.ones(1, 4, dtype=torch.bool)
    h, g = model.streams(tokens, mask, torch.tensor([[2, 0, 3, 1]]))
    embed = model.body.embed
    positions = embed.positions.embedding.weight[:4]
    torch.testing.assert_close(h[0], embed.tokens.weight[tokens[0]] * embed.scale
                               + positions)
    torch.testing.assert_close(g[0], model.query_start + positions)


def test_identity_order_content_stream_is_the_causal_lm_and_query_sees_only_the_past():
    # Shared weights: the permutation LM's body loaded into a causal LM.
    plm = _model(1)
    clm = CausalLM(V, **SIZES).eval()
    clm.body.load_state_dict(plm.body.state_dict())
    tokens = torch.randint(3, V, (2, 8), generator=torch.Generator().manual_seed(1))
    mask = torch.ones(2, 8, dtype=torch.bool)
    identity = torch.arange(8).expand(2, 8)
    h, _ = plm.streams(tokens, mask, identity)
    torch.testing.assert_close(h, clm.hidden(tokens, mask))
    # With the identity order the prediction of x_t uses x_<t exactly as the causal
    # LM's (whose logits at t - 1 score x_t): changing x_t or later leaves it, changing
    # an earlier token moves it.
    logits = plm(tokens, mask, identity)  # (B, T, V): row t scores x_t
    for t in range(8):
        future = tokens.clone()
        future[:, t:] = 3 + (future[:, t:] - 3 + 1) % (V - 3)
        torch.testing.assert_close(plm(future, mask, identity)[:, t], logits[:, t],
                                   rtol=0, atol=1e-6)
        if t > 0:
            past = tokens.clone()
            past[:, t - 1] = 3 + (past[:, t - 1] - 3 + 1) % (V - 3)
            assert (plm(past, mask, identity)[:, t] - logits[:, t]).abs().max() > 1e-4
    # K = 1 predicts every token.
    assert partial_prediction(identity, mask, 1).all()


def test_partial_prediction_selects_the_last_ceil_n_over_k_of_the_order():
    g = torch.Generator().manual_seed(2)
    for k in (1, 2, 3, 6, 7, 2.5):
        mask = torch.rand(8, 13, generator=g) < 0.7
        mask[:, 0] = True
        order = torch.stack([torch.randperm(13, generator=g) for _ in range(8)])
        predict = partial_prediction(order, mask, k)
        for b in range(8):
            real_order = [int(p) for p in order[b] if mask[b, p]]
            n_pred = math.ceil(len(real_order) / k)
            expected = set(real_order[len(real_order) - n_pred:])
            assert set(predict[b].nonzero().flatten().tolist()) == expected
    with pytest.raises(ValueError, match="K must be"):
        partial_prediction(order, mask, 0.5)


def test_random_orders_permute_the_real_tokens_and_put_pads_last():
    mask = torch.ones(200, 6, dtype=torch.bool)
    mask[100:, 4:] = False
    order = random_orders(mask, torch.Generator().manual_seed(3))
    order_ranks(order)  # every row is a permutation
    assert torch.equal(order[100:, 4:], torch.tensor([4, 5]).expand(100, 2))
    assert (order[100:, :4] < 4).all()
    # Every position comes first in some order: the orders are not all one order.
    assert set(order[:100, 0].tolist()) == set(range(6))


def test_padded_batch_gives_each_sequence_its_loss_alone():
    model = _model(4)
    seqs = [[5, 6, 7, 8, 9, 10], [11, 12, 13], [14, 15, 16, 17]]
    T = 8  # two more pads than the longest
    tokens = torch.zeros(3, T, dtype=torch.long)
    mask = torch.zeros(3, T, dtype=torch.bool)
    for b, s in enumerate(seqs):
        tokens[b, :len(s)], mask[b, :len(s)] = torch.tensor(s), True
    order = random_orders(mask, torch.Generator().manual_seed(5))
    predict = partial_prediction(order, mask, 2)
    assert not predict[~mask].any()  # pads are never predicted
    logits = model(tokens, mask, order)
    for b, s in enumerate(seqs):
        L = len(s)
        alone_order = order[b:b + 1, :L]  # the real positions come first
        alone_pred = partial_prediction(alone_order, torch.ones(1, L, dtype=torch.bool),
                                        2)
        assert torch.equal(alone_pred[0], predict[b, :L])
        alone = model(tokens[b:b + 1, :L], mask[b:b + 1, :L], alone_order)
        torch.testing.assert_close(alone[0], logits[b, :L], rtol=0, atol=1e-5)
        picked = alone_pred[0]
        loss_alone = F.cross_entropy(alone[0][picked], tokens[b, :L][picked])
        loss_batch = F.cross_entropy(logits[b][predict[b]], tokens[b][predict[b]])
        torch.testing.assert_close(loss_alone, loss_batch, rtol=0, atol=1e-5)


def test_step_scores_the_predicted_tokens_and_repeats_in_evaluation():
    model = _model(6)
    tokens = torch.randint(3, V, (4, 9), generator=torch.Generator().manual_seed(6))
    batch = Batch(tokens, torch.ones(4, 9, dtype=torch.bool),
                  torch.zeros(4, dtype=torch.long), torch.arange(4))
    step = PermutationLMStep(k=3, seed=7)
    out = step(model, batch)
    assert out.count == 4 * 3  # ceil(9 / 3) per row
    assert torch.equal(step(model, batch).loss, out.loss)  # eval: same orders
    g = torch.Generator().manual_seed(step.seed + 7919 * 0)
    order = random_orders(batch.mask, g)
    predict = partial_prediction(order, batch.mask, 3)
    ref = F.cross_entropy(model(tokens, batch.mask, order)[predict], tokens[predict])
    torch.testing.assert_close(out.loss, ref)


def test_permutation_lm_loss_falls_on_a_tiny_repeated_corpus():
    torch.manual_seed(0)
    model = PermutationLM(V, **SIZES)
    losses = repeated_rows_losses(model, PermutationLMStep(k=2))
    assert losses[-1] < 0.7 * losses[0]
    assert model.query_start.grad is not None


def test_step_state_resumes_the_same_training_orders():
    model = _model(8).train()
    tokens = torch.randint(3, V, (2, 7), generator=torch.Generator().manual_seed(8))
    batch = Batch(tokens, torch.ones(2, 7, dtype=torch.bool),
                  torch.zeros(2, dtype=torch.long), torch.arange(2))
    step = PermutationLMStep(k=2, seed=9)
    step(model, batch)
    saved = step.state_dict()
    expected = step(model, batch).loss
    resumed = PermutationLMStep(k=2, seed=9)
    resumed.load_state_dict(saved)
    torch.testing.assert_close(resumed(model, batch).loss, expected)
    assert not torch.equal(step(model, batch).loss, expected)  # fresh orders each call
