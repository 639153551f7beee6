"""Whole stacks against torch's nn.TransformerEncoder / nn.TransformerDecoder (with the
final LayerNorm that pre-LN needs), and the Transformer's input embedding against
eq. (9) of the chapter written out: ``E[token] * sqrt(D) + PE(pos)``."""

import math

import pytest
import torch
from torch import nn

from lamalib.nn.transformer.stack import Decoder, Encoder
from lamalib.nn.transformer.token_embedding import Embeddings

D, H, FF, L = 16, 4, 32, 2


def _perturb_norms(module):
    """Gains and biases away from 1 and 0, so that copying and applying them shows."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if "norm" in name:
                p.add_(torch.randn_like(p) * 0.3)


def _ours_from(ref, ours_cls, residual):
    """Our stack with ``ref``'s weights: each layer and, for pre-LN, the final norm
    (torch keeps it in the stack's ``norm``; post-LN has none)."""
    ref.eval()
    _perturb_norms(ref)
    ours = ours_cls(L, D, H, FF, dropout=0.0, residual=residual).eval()
    for mine, theirs in zip(ours.layers, ref.layers):
        mine.load_from_torch(theirs)
    if residual == "pre":
        ours.final_norm.load_state_dict(ref.norm.state_dict())
    return ours


@pytest.mark.parametrize("residual", ["post", "pre"])
def test_encoder_stack_matches_torch_with_its_final_norm(residual):
    torch.manual_seed(0)
    pre = residual == "pre"
    layer = nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, batch_first=True,
                                       norm_first=pre)
    ref = nn.TransformerEncoder(layer, L, norm=nn.LayerNorm(D) if pre else None,
                                enable_nested_tensor=False)
    ours = _ours_from(ref, Encoder, residual)
    x = torch.randn(3, 6, D)
    mask = torch.tensor([[1] * 6, [1] * 4 + [0] * 2, [1] * 2 + [0] * 4]).bool()
    with torch.no_grad():
        want = ref(x, src_key_padding_mask=~mask)
        got = ours(x, mask)
    torch.testing.assert_close(got[mask], want[mask], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("residual", ["post", "pre"])
def test_decoder_stack_matches_torch_with_its_final_norm(residual):
    torch.manual_seed(0)
    pre = residual == "pre"
    layer = nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, batch_first=True,
                                       norm_first=pre)
    ref = nn.TransformerDecoder(layer, L, norm=nn.LayerNorm(D) if pre else None)
    ours = _ours_from(ref, Decoder, residual)
    y, memory = torch.randn(2, 5, D), torch.randn(2, 7, D)
    src_mask = torch.tensor([[1] * 7, [1] * 3 + [0] * 4]).bool()
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    with torch.no_grad():
        want = ref(y, memory, tgt_mask=causal, memory_key_padding_mask=~src_mask)
        got = ours(y, memory, src_mask=src_mask)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_embedding_is_token_vector_times_sqrt_d_plus_position(positional):
    torch.manual_seed(0)
    emb = Embeddings(11, D, pad_id=0, positional=positional, max_len=8).eval()
    tokens = torch.tensor([[3, 7, 1, 0], [10, 2, 0, 0]])
    got = emb(tokens)  # (B, T, D)
    E = emb.tokens.weight.detach()
    for b in range(2):
        for pos in range(4):
            if positional == "sinusoidal":  # PE(pos, 2i) = sin, PE(pos, 2i+1) = cos
                pe = torch.tensor([
                    f(pos / 10000 ** (2 * (d // 2) / D))
                    for d, f in zip(range(D), [math.sin, math.cos] * (D // 2))
                ])
            else:
                pe = emb.positions.embedding.weight[pos].detach()
            want = E[tokens[b, pos]] * math.sqrt(D) + pe
            torch.testing.assert_close(got[b, pos], want, atol=1e-5, rtol=1e-5)
    # The pad vector is zero: a pad position carries its position vector only.
    assert (E[0] == 0).all()
