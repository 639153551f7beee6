"""The causal LM: no look-ahead, the step's loss by hand, padding, and it learns."""

import math

import pytest
import torch
from torch import nn

from lamalib.data import Batch
from lamalib.models.causal_lm import CausalLM, causal_lm_step
from lamalib.testing import assert_padding_invariant
from tiny_lm_fit import repeated_rows_losses

pytestmark = pytest.mark.usefixtures("one_thread")

V = 30
SIZES = dict(d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=16, dropout=0.0)


@pytest.mark.parametrize("residual", ["pre", "post"])
def test_logits_at_t_depend_on_tokens_up_to_t_only(residual):
    torch.manual_seed(0)
    model = CausalLM(V, residual=residual, **{**SIZES}).eval()
    tokens = torch.randint(3, V, (2, 9), generator=torch.Generator().manual_seed(0))
    mask = torch.ones(2, 9, dtype=torch.bool)
    logits = model(tokens, mask)
    for t in range(9):
        later = tokens.clone()
        later[:, t + 1:] = 3 + (later[:, t + 1:] - 3 + 1) % (V - 3)
        torch.testing.assert_close(model(later, mask)[:, :t + 1], logits[:, :t + 1],
                                   rtol=0, atol=1e-6)
        now = tokens.clone()
        now[:, t] = 3 + (now[:, t] - 3 + 1) % (V - 3)
        moved = (model(now, mask)[:, t:] - logits[:, t:]).abs().amax(-1)  # (B, T-t)
        assert moved.min() > 1e-4  # x_t reaches position t and every later one


class _FixedLogits(nn.Module):
    """Logits ``a`` on one chosen id per position, 0 elsewhere."""

    def __init__(self, favourite: torch.Tensor, a: float) -> None:
        super().__init__()
        self.favourite, self.a = favourite, a
        self.dummy = nn.Parameter(torch.zeros(()))

    def forward(self, tokens, mask):
        logits = torch.zeros(*tokens.shape, V) + self.dummy
        return logits.scatter(-1, self.favourite[..., None], self.a)


def test_step_loss_equals_a_hand_computation():
    # Rows [5 6 7] and [8 9 pad]; scored: 6 | 5, 7 | 5 6, 9 | 8 (3 targets).
    tokens = torch.tensor([[5, 6, 7], [8, 9, 0]])
    mask = tokens != 0
    batch = Batch(tokens, mask, torch.zeros(2, dtype=torch.long), torch.arange(2))
    a = 2.0
    # The model favours the true next token at positions (0, 0) and (1, 0) and a wrong
    # one at (0, 1): two targets with p = e^a / (e^a + V - 1), one with 1 / (...).
    favourite = torch.tensor([[6, 11, 12], [9, 13, 14]])
    out = causal_lm_step(_FixedLogits(favourite, a), batch)
    z = math.exp(a) + V - 1
    hand = -(2 * (a - math.log(z)) + (0 - math.log(z))) / 3
    assert out.count == 3 and out.correct == 2
    assert abs(float(out.loss.detach()) - hand) < 1e-6


def test_padding_never_changes_a_sequence_and_learned_positions_are_bounded():
    torch.manual_seed(1)
    model = CausalLM(V, **SIZES)
    assert_padding_invariant(model, [[3, 4, 5], [6, 7, 8, 9, 10, 11], [12], [4, 4]])
    with pytest.raises(ValueError, match="max_len"):
        model(torch.ones(1, 17, dtype=torch.long), torch.ones(1, 17, dtype=torch.bool))


def test_causal_lm_loss_falls_on_a_tiny_repeated_corpus():
    torch.manual_seed(0)
    losses = repeated_rows_losses(CausalLM(V, **SIZES), causal_lm_step)
    assert losses[-1] < 0.5 * losses[0]
