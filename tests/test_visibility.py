"""The mask diagrams' matrices are the masks the models use."""

import pytest
import torch

from lamalib.models.causal_lm import CausalLM
from lamalib.models.mlm import MaskedLM
from lamalib.models.permutation_lm import PermutationLM
from lamalib.nn.transformer.visibility import visibility

pytestmark = pytest.mark.usefixtures("one_thread")

SIZES = dict(d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, dropout=0.0)


def test_the_papers_x1_to_x4_example():
    # Order 3 -> 2 -> 4 -> 1 (Yang et al., Figure 1), positions from 0.
    v = visibility(4, order=[2, 1, 3, 0], masked=[1, 2])
    F_, T_ = False, True
    assert v["query"].tolist() == [[F_, T_, T_, T_],
                                   [F_, F_, T_, F_],
                                   [F_, F_, F_, F_],
                                   [F_, T_, T_, F_]]
    assert torch.equal(v["content"], v["query"] | torch.eye(4, dtype=torch.bool))
    assert torch.equal(v["permutation_context"], v["query"])
    assert v["mlm"].all()
    assert v["mlm_context"].tolist() == [[T_, F_, F_, T_]] * 4
    assert v["causal"].tolist() == [[T_, F_, F_, F_], [T_, T_, F_, F_],
                                    [T_, T_, T_, F_], [T_, T_, T_, T_]]
    assert torch.equal(v["causal_context"], v["causal"] & ~torch.eye(4, dtype=bool))
    assert "query" not in visibility(4)


def _weights_pattern(weights):  # (L, B, H, Tq, Tk) -> where any weight is > 0
    return weights[:, 0] > 0  # (L, H, Tq, Tk)


def test_diagrams_equal_the_masks_and_weights_of_the_models():
    torch.manual_seed(0)
    T = 6
    tokens = torch.randint(3, 20, (1, T))
    ones = torch.ones(1, T, dtype=torch.bool)
    order = torch.tensor([[3, 0, 5, 1, 4, 2]])
    v = visibility(T, order=order[0])

    causal = CausalLM(20, **SIZES).eval()
    assert torch.equal(causal.attention_mask(ones)[0], v["causal"])
    causal.body.encoder.keep_weights(True)
    causal(tokens, ones)
    w = _weights_pattern(causal.body.encoder.attention_weights())
    assert torch.equal(w, v["causal"].expand_as(w))

    plm = PermutationLM(20, **SIZES).eval()
    content, query = plm.attention_masks(ones, order)
    assert torch.equal(content[0], v["content"]) and torch.equal(query[0], v["query"])
    plm.body.encoder.keep_weights(True)
    plm(tokens, ones, order)
    w = _weights_pattern(plm.body.encoder.attention_weights())  # (L, H, 2T, T)
    assert torch.equal(w[:, :, :T], v["content"].expand_as(w[:, :, :T]))
    assert torch.equal(w[:, :, T:], v["query"].expand_as(w[:, :, T:]))

    mlm = MaskedLM(20, **SIZES).eval()
    mlm.body.encoder.keep_weights(True)
    mlm(tokens, ones)
    w = _weights_pattern(mlm.body.encoder.attention_weights())
    assert torch.equal(w, v["mlm"].expand_as(w))
