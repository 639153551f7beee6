"""Encoder/decoder layers against torch.nn.Transformer*Layer; causal mask; padding."""

import pytest
import torch
from torch import nn

from lamalib.nn.transformer.decoder_layer import DecoderLayer
from lamalib.nn.transformer.encoder_decoder import EncoderDecoder
from lamalib.nn.transformer.encoder_layer import EncoderLayer
from lamalib.nn.transformer.residual import residual_class
from lamalib.nn.transformer.stack import Decoder, Encoder

D, H, FF = 16, 4, 32


def _pair(torch_cls, ours_cls, residual):
    """A torch layer with non-trivial norms and our layer loaded from it."""
    torch.manual_seed(0)
    ref = torch_cls(D, H, FF, dropout=0.0, batch_first=True,
                    norm_first=residual == "pre").eval()
    with torch.no_grad():  # gains and biases != 1, 0 so that copying them is tested
        for name, p in ref.named_parameters():
            if "norm" in name:
                p.add_(torch.randn_like(p) * 0.3)
    ours = ours_cls(D, H, FF, dropout=0.0, residual=residual).eval()
    ours.load_from_torch(ref)
    return ref, ours


@pytest.mark.parametrize("residual", ["post", "pre"])
def test_encoder_layer_matches_torch(residual):
    ref, ours = _pair(nn.TransformerEncoderLayer, EncoderLayer, residual)
    x = torch.randn(3, 6, D)
    mask = torch.tensor([[1] * 6, [1] * 4 + [0] * 2, [1] * 2 + [0] * 4]).bool()
    want = ref(x, src_key_padding_mask=~mask)  # torch: True means "ignore"
    got = ours(x, mask)
    torch.testing.assert_close(got[mask], want[mask], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("residual", ["post", "pre"])
def test_decoder_layer_matches_torch(residual):
    ref, ours = _pair(nn.TransformerDecoderLayer, DecoderLayer, residual)
    y, memory = torch.randn(2, 5, D), torch.randn(2, 7, D)
    src_mask = torch.tensor([[1] * 7, [1] * 3 + [0] * 4]).bool()
    causal = nn.Transformer.generate_square_subsequent_mask(5)  # -inf above diagonal
    want = ref(y, memory, tgt_mask=causal, memory_key_padding_mask=~src_mask)
    got = ours(y, memory, src_mask=src_mask)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_pre_ln_stack_has_final_norm_and_unknown_name_fails():
    assert isinstance(Encoder(2, D, H, FF, residual="post").final_norm, nn.Identity)
    assert not isinstance(Encoder(2, D, H, FF, residual="pre").final_norm, nn.Identity)
    with pytest.raises(ValueError, match="post"):
        residual_class("sandwich")


def _model(residual="post"):
    torch.manual_seed(2)
    return EncoderDecoder(11, 13, d_model=D, n_heads=H, d_ff=FF, n_layers=2,
                          dropout=0.0, residual=residual).eval()


@pytest.mark.parametrize("residual", ["post", "pre"])
def test_causal_mask_no_position_sees_a_later_one(residual):
    model = _model(residual)
    src = torch.randint(3, 11, (2, 6))
    src_mask = torch.ones(2, 6, dtype=torch.bool)
    tgt = torch.randint(3, 13, (2, 7))
    base = model(src, src_mask, tgt)  # (B, T, V)
    for t in range(7):
        changed = tgt.clone()
        changed[:, t] = (changed[:, t] - 3 + 1) % 10 + 3  # another real token
        out = model(src, src_mask, changed)
        # Positions before t are unchanged; position t itself does change.
        torch.testing.assert_close(out[:, :t], base[:, :t], atol=1e-6, rtol=0)
        assert (out[:, t] - base[:, t]).abs().max() > 1e-4


def test_kept_weights_are_causal_and_skip_source_padding():
    model = _model()
    model.decoder.keep_weights(True)
    src = torch.randint(3, 11, (2, 5))
    src_mask = torch.tensor([[1] * 5, [1] * 2 + [0] * 3]).bool()
    model(src, src_mask, torch.randint(3, 13, (2, 4)))
    w = model.decoder.attention_weights()  # (L, B, H, T, T)
    assert w.shape == (2, 2, H, 4, 4)
    assert torch.all(w.triu(diagonal=1) == 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 2, H, 4))
    cross = model.decoder.layers[0].last_cross_weights  # (B, H, T, S)
    assert torch.all(cross[1, :, :, 2:] == 0)
    torch.testing.assert_close(cross.sum(-1), torch.ones(2, H, 4))


def test_encoder_and_decoder_are_padding_invariant():
    from lamalib.testing import assert_padding_invariant

    model = _model("pre")
    seqs = [[3, 4, 5, 6], [7, 8], [9, 10, 3, 4, 5, 6]]
    assert_padding_invariant(
        model, seqs, forward=lambda m, tok, mask: m.encode(tok, mask))
    memory = torch.randn(1, 4, D)
    src_mask = torch.ones(1, 4, dtype=torch.bool)

    def decode(m, tok, mask):  # the same memory for each row
        mem = memory.expand(tok.shape[0], -1, -1)
        return m.decode(tok, mem, src_mask.expand(tok.shape[0], -1), mask)

    assert_padding_invariant(model, seqs, forward=decode)


def test_decoder_stack_runs_with_and_without_target_mask():
    dec = Decoder(1, D, H, FF, dropout=0.0).eval()
    y, memory = torch.randn(2, 3, D), torch.randn(2, 4, D)
    full = torch.ones(2, 3, dtype=torch.bool)
    torch.testing.assert_close(dec(y, memory), dec(y, memory, tgt_mask=full))
