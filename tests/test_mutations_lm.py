"""The language models' steps and masks, cases that mutation testing found unguarded:
``MaskedLMStep``'s evaluation masks depend on the batch's rows (the same rows get the
same masks, other rows others), and the causal LM masks padded keys, not queries."""

import torch
from torch import nn

from lamalib.data import Batch
from lamalib.models.causal_lm import CausalLM
from lamalib.models.mlm import MaskedLMStep

V = 40


class _Recorder(nn.Module):
    """Uniform logits; keeps the (corrupted) inputs it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[torch.Tensor] = []
        self.dummy = nn.Parameter(torch.zeros(()))

    def forward(self, tokens, mask):
        self.seen.append(tokens.clone())
        return torch.zeros(*tokens.shape, V) + self.dummy


def _batch(first_index):
    tokens = torch.randint(5, V, (4, 30), generator=torch.Generator().manual_seed(0))
    mask = torch.ones_like(tokens, dtype=torch.bool)
    index = torch.arange(first_index, first_index + 4)
    return Batch(tokens, mask, torch.zeros(4, dtype=torch.long), index)


def test_evaluation_masks_depend_on_the_batch_rows_only():
    step = MaskedLMStep(mask_id=4, vocab_size=V, special_ids=(0, 1), seed=3)
    model = _Recorder().eval()
    for batch in (_batch(0), _batch(0), _batch(8), _batch(0)):
        step(model, batch)
    first, again, other, last = model.seen
    assert not torch.equal(first, _batch(0).tokens)  # something was masked
    assert torch.equal(first, again) and torch.equal(first, last)  # same rows
    assert not torch.equal(first, other)  # same tokens, other rows: other masks
    # and another step with the same seed (its training draws aside) agrees
    fresh = MaskedLMStep(mask_id=4, vocab_size=V, special_ids=(0, 1), seed=3)
    step(model.train(), _batch(0))  # training draws advance the step's generator
    fresh(model.eval(), _batch(0))
    assert torch.equal(model.seen[-1], first)


def test_causal_lm_masks_padded_keys_not_queries():
    # a pad before and between real tokens: no real query may read it
    mask = torch.tensor([[False, True, True, False, True]])
    allowed = CausalLM.attention_mask(mask)[0]  # (T, T): query, key
    causal = torch.tril(torch.ones(5, 5, dtype=torch.bool))
    torch.testing.assert_close(allowed, causal & mask[0][None, :])
    # behaviour: changing the token at a pad moves no real position's logits
    torch.manual_seed(0)
    model = CausalLM(V, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=8,
                     dropout=0.0).eval()
    tokens = torch.tensor([[7, 8, 9, 10, 11]])
    other = tokens.clone()
    other[0, 0], other[0, 3] = 20, 21
    with torch.no_grad():
        a, b = model(tokens, mask), model(other, mask)
    torch.testing.assert_close(a[mask], b[mask], rtol=0, atol=1e-6)
