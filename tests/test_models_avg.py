import pytest
import torch
from torch import nn

from lamalib.models import available_models, build_model
from lamalib.testing import assert_padding_invariant

SEQUENCES = [[5, 6, 7, 8], [9], [10, 11, 12, 13, 14, 15], [3, 3]]


def test_avg_is_padding_invariant():
    torch.manual_seed(0)
    model = build_model("avg", vocab_size=20, num_classes=3, embed_dim=8)
    assert_padding_invariant(model, SEQUENCES)


def test_avg_equals_the_mean_of_its_word_vectors():
    torch.manual_seed(0)
    model = build_model("avg", vocab_size=20, num_classes=2, embed_dim=4)
    tokens, mask = torch.tensor([[5, 6, 0]]), torch.tensor([[True, True, False]])
    expected = model.out(model.embed.weight[[5, 6]].mean(0))
    assert torch.allclose(model(tokens, mask)[0], expected, atol=1e-6)


class _LeakyMean(nn.Module):
    """Averages over pads too: the bug the padding helper must catch."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 4)

    def forward(self, tokens, mask):
        return self.embed(tokens).mean(1)


def test_padding_helper_catches_a_model_that_looks_at_pads():
    torch.manual_seed(0)
    with pytest.raises(AssertionError, match="padding changed"):
        assert_padding_invariant(_LeakyMean(), SEQUENCES)


def test_padding_helper_compares_per_token_outputs_on_real_positions():
    torch.manual_seed(0)
    embed = nn.Embedding(20, 4, padding_idx=0)

    class PerToken(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = embed

        def forward(self, tokens, mask):
            return self.embed(tokens)  # (B, T, E): each position alone

    assert_padding_invariant(PerToken(), SEQUENCES)


def test_registry_knows_avg_and_rejects_unknown_names():
    assert "avg" in available_models()
    with pytest.raises(KeyError, match="avg"):
        build_model("nope")


def test_token_contributions_add_up_to_the_logits():
    torch.manual_seed(0)
    model = build_model("avg", vocab_size=20, num_classes=3, embed_dim=4).eval()
    tokens = torch.tensor([[5, 6, 7], [8, 0, 0]])
    mask = tokens != 0
    parts = model.token_contributions(tokens, mask)  # (B, T, C)
    assert parts.shape == (2, 3, 3) and torch.all(parts[1, 1:] == 0)
    assert torch.allclose(parts.sum(1) + model.out.bias, model(tokens, mask), atol=1e-6)
