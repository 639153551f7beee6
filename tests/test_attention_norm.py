"""Norm-weighted attention (Kobayashi et al. 2020): the value vectors f_h(x_j) that
lamalib.analysis.attention_norm reads rebuild the attention block's own output."""

import pytest
import torch

transformers = pytest.importorskip("transformers")

from lamalib.analysis.attention_norm import hf_value_vectors, norm_weighted  # noqa: E402
from lamalib.models.hf_encoder import load_encoder  # noqa: E402
from tiny_bert import saved_tiny_bert  # noqa: E402


def test_value_vectors_rebuild_the_attention_blocks_output(tmp_path):
    with pytest.warns(UserWarning, match="not checked"):
        model, tokenizer = load_encoder(saved_tiny_bert(tmp_path / "tiny"))
    ids = torch.tensor([tokenizer("the cat sat on the mat")["input_ids"]])  # (1, T)
    mask = torch.ones_like(ids)
    weights, f = hf_value_vectors(model, ids, mask)  # (L,1,H,T,T), (L,1,H,T,D)
    assert weights.shape[:3] == (2, 1, 2) and f.shape[-1] == 16
    outputs = []
    hooks = [layer.attention.output.dense.register_forward_hook(
        lambda m, i, o: outputs.append(o)) for layer in model.encoder.layer]
    with torch.no_grad():
        model(input_ids=ids, attention_mask=mask)
    for h in hooks:
        h.remove()
    for l, layer in enumerate(model.encoder.layer):
        # sum_h sum_j alpha_ij f_h(x_j) + b_O is the dense projection's output
        rebuilt = torch.einsum("hij,hjd->id", weights[l, 0], f[l, 0]) \
            + layer.attention.output.dense.bias
        torch.testing.assert_close(rebuilt, outputs[l][0], atol=1e-5, rtol=1e-5)


def test_norm_weighting_moves_weight_off_a_key_with_a_small_value():
    w = torch.tensor([[[0.8, 0.2], [0.5, 0.5]]])  # (H, T, T)
    f = torch.tensor([[[0.1, 0.0], [3.0, 4.0]]])  # (H, T, D): norms 0.1 and 5
    got = norm_weighted(w, f)
    want = torch.tensor([[[0.08, 1.0], [0.05, 2.5]]])
    torch.testing.assert_close(got, want / want.sum(-1, keepdim=True))
    assert got[0, 0].argmax() == 1  # the argmax moves to the key that carries
    assert torch.equal(norm_weighted(torch.zeros(1, 2, 2), f), torch.zeros(1, 2, 2))
