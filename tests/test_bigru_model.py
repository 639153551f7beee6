"""The "bigru_max" classifier: registry, padding invariance, a brute-force reference."""

import pytest
import torch

from lamalib.models import registry
from lamalib.models.bigru import BiGRUMaxClassifier
from lamalib.testing import assert_padding_invariant

SEQS = [[3, 4, 5, 6, 7], [8, 9], [5], [2, 3, 4, 9, 9, 1, 6]]


def _model(**kw):
    torch.manual_seed(0)
    return BiGRUMaxClassifier(vocab_size=10, num_classes=3, embed_dim=6,
                              hidden_size=5, **kw)


def test_registered_by_name():
    # MODELS directly, not build_model: that imports every model file, also others'.
    assert registry.MODELS["bigru_max"] is BiGRUMaxClassifier


def test_padding_invariant():
    assert_padding_invariant(_model(), SEQS)


def test_equals_unpadded_gru_then_max_by_hand():
    model = _model().eval()
    from lamalib.data import pad_sequences

    tokens, mask = pad_sequences(SEQS)
    logits = model(tokens, mask)
    for b, seq in enumerate(SEQS):
        x = model.embed(torch.tensor([seq]))  # (1, L, E)
        states, _ = model.encoder.gru(x)  # plain nn.GRU over the sequence alone
        pooled = states[0].max(dim=0).values  # max over its real tokens only
        torch.testing.assert_close(logits[b], model.out(pooled), atol=1e-5, rtol=1e-5)


def test_pretrained_embeddings_used_and_frozen():
    matrix = torch.randn(10, 6)
    model = _model(pretrained=matrix, freeze_embeddings=True)
    torch.testing.assert_close(model.embed.weight, matrix)
    assert not model.embed.weight.requires_grad


def test_overfits_a_tiny_batch():
    # Capacity check: 8 sentences with arbitrary labels must be learnable.
    from lamalib.data import pad_sequences

    model = _model()
    g = torch.Generator().manual_seed(1)
    lengths = (3, 5, 7, 4, 6, 2, 8, 5)
    seqs = [torch.randint(1, 10, (n,), generator=g).tolist() for n in lengths]
    tokens, mask = pad_sequences(seqs)
    labels = torch.randint(0, 3, (8,), generator=g)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(60):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(tokens, mask), labels).backward()
        opt.step()
    assert torch.equal(model(tokens, mask).argmax(-1), labels)


def test_pretrained_of_the_wrong_shape_says_what_to_do():
    with pytest.raises(ValueError, match="same Vocab"):
        _model(pretrained=torch.randn(9, 6))
