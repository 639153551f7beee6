"""The self-attention-only classifier: padding invariance, weights, registry."""

import torch

from lamalib.models import build_model
from lamalib.testing import assert_padding_invariant


def test_self_attention_classifier_is_padding_invariant():
    torch.manual_seed(0)
    model = build_model("self_attention", vocab_size=20, num_classes=3, d_model=8,
                        n_heads=2, n_layers=2)
    assert_padding_invariant(model, [[3, 4, 5], [6, 7, 8, 9, 10, 11], [12]])


def test_kept_weights_ignore_pads_and_match_both_paths():
    torch.manual_seed(1)
    model = build_model("self_attention", vocab_size=20, num_classes=2, d_model=8,
                        n_heads=2, n_layers=2).eval()
    tokens = torch.tensor([[3, 4, 5, 0], [6, 7, 8, 9]])
    mask = tokens != 0
    fast = model(tokens, mask)
    model.keep_weights = True
    slow = model(tokens, mask)  # the from-scratch path: same logits
    torch.testing.assert_close(fast, slow)
    w = model.attention_weights()  # (L, B, H, T, T)
    assert w.shape == (2, 2, 2, 4, 4)
    assert (w[:, 0, :, :, 3] == 0).all()  # nobody looks at the pad
