"""The Multi-Scale paper's Transformer baseline matched to the MS-Transformer
(lamalib.models.ms_baseline): the same embeddings, [CLS] node and classifier; full
attention, a feed-forward sublayer and positions; checked against a reference built
from torch.nn.TransformerEncoderLayer."""

import torch
from torch import nn

from lamalib.models import build_model
from lamalib.nn.masking import lengths_to_mask
from lamalib.nn.pooling import masked_max
from lamalib.nn.transformer.positional import sinusoidal_table
from lamalib.testing import assert_padding_invariant

SIZES = dict(embed_dim=16, d_model=16, n_layers=2, n_heads=4, mlp_hidden=8,
             dropout=0.0)


def test_equals_embed_positions_torch_layers_cls_and_max_pool():
    torch.manual_seed(0)
    model = build_model("transformer", vocab_size=30, num_classes=3, d_ff=32,
                        **SIZES).eval()
    refs = [nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
            for _ in range(2)]
    for ours, ref in zip(model.layers, refs):
        ours.load_from_torch(ref)
    tokens = torch.tensor([[5, 6, 7, 8, 9], [3, 4, 0, 0, 0]])
    mask = lengths_to_mask(torch.tensor([5, 2]), 5)  # (B, T)
    # the reference, step by step
    x = torch.cat([model.cls.expand(2, 1, -1), model.embed(tokens)], 1)  # (B, 6, D)
    h = x + sinusoidal_table(6, 16)[None]  # positions on [CLS] + tokens
    full = torch.cat([torch.ones(2, 1, dtype=torch.bool), mask], 1)  # (B, 6)
    for ref in refs:
        h = ref(h, src_key_padding_mask=~full)
    r = torch.cat([h[:, 0], masked_max(h, full)], -1)  # (B, 2 D)
    torch.testing.assert_close(model(tokens, mask), model.classifier(r))


def test_matches_the_ms_transformer_but_for_attention_ffn_and_positions():
    ms = build_model("ms_transformer", vocab_size=30, num_classes=3,
                     scales="1,3,N/4,N/2", **SIZES)
    tr = build_model("transformer", vocab_size=30, num_classes=3, **SIZES)
    shapes = lambda m: {n: p.shape for n, p in m.named_parameters()
                        if not n.startswith("layers.")}
    assert shapes(ms) == shapes(tr)  # embeddings, [CLS], classifier
    assert tr.layers[0].ff.linear1.out_features == 4 * 16  # d_ff = 4 D by default


def test_positions_make_order_matter_and_padding_does_not():
    torch.manual_seed(1)
    model = build_model("transformer", vocab_size=30, num_classes=3, **SIZES).eval()
    t = torch.tensor([[5, 6, 7, 8, 9, 10]])
    p = t[:, torch.tensor([3, 0, 5, 1, 4, 2])]
    m = torch.ones_like(t, dtype=torch.bool)
    assert not torch.allclose(model(t, m), model(p, m))
    assert_padding_invariant(model, [[5, 6, 7, 8, 9, 10, 11], [3, 4], [12]])


def test_attention_weights_cover_cls_and_tokens_and_skip_padding():
    torch.manual_seed(2)
    model = build_model("transformer", vocab_size=30, num_classes=3, **SIZES).eval()
    tokens = torch.tensor([[5, 6, 7], [8, 0, 0]])
    model.encode(tokens, lengths_to_mask(torch.tensor([3, 1]), 3), need_weights=True)
    weights = model.attention_weights()
    assert len(weights) == 2 and weights[0].shape == (2, 4, 4, 4)
    torch.testing.assert_close(weights[1].sum(-1), torch.ones(2, 4, 4))
    assert torch.all(weights[0][1, :, :, 2:] == 0)  # the padded keys
