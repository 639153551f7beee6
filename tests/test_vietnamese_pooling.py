"""The packed sentence-pair classifier of the seed report's pooling comparison
(chapter 11): "two_cls" reads the [CLS] that opens segment B beside the first one,
"cls" the first alone, and padding changes neither."""

import pytest
import torch

from lamalib.models.packed_pair import PackedPairClassifier

CLS = 3
TOKENS = torch.tensor([[3, 5, 6, 4, 3, 7, 4, 0],   # [CLS] a b [SEP] [CLS] c [SEP] pad
                       [3, 5, 4, 3, 7, 8, 9, 4]])
SEGMENTS = torch.tensor([[0, 0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 1, 1, 1, 1, 1]])


def _model(pooling):
    torch.manual_seed(0)
    return PackedPairClassifier(20, 3, CLS, pooling, d_model=8, n_heads=2, n_layers=1,
                                d_ff=16, dropout=0.0, max_len=16).eval()


@pytest.mark.parametrize("pooling", ["cls", "two_cls"])
def test_pooling_reads_the_right_cls_vectors(pooling):
    model = _model(pooling)
    mask = TOKENS != 0
    h = model.body.encoder(model.body.embed(TOKENS) + model.segments(SEGMENTS), mask)
    pooled = model.pooled(h, TOKENS, SEGMENTS)
    if pooling == "cls":
        assert torch.equal(pooled, h[:, 0])
    else:  # the second [CLS] sits at position 4 in row 0 and 3 in row 1
        assert torch.equal(pooled, torch.cat([h[:, 0], h[[0, 1], [4, 3]]], -1))


@pytest.mark.parametrize("pooling", ["cls", "two_cls"])
def test_padding_changes_no_logit(pooling):
    model = _model(pooling)
    with torch.no_grad():
        batch = model(TOKENS, TOKENS != 0, SEGMENTS)
        alone = model(TOKENS[:1, :7], TOKENS[:1, :7] != 0, SEGMENTS[:1, :7])
    assert torch.allclose(batch[:1], alone, atol=1e-6)


def test_two_cls_without_a_second_cls_is_refused():
    model = _model("two_cls")
    tokens = torch.tensor([[3, 5, 4, 7, 4]])
    with pytest.raises(ValueError, match=r"\[CLS\] at the start of segment B"):
        model(tokens, tokens != 0, torch.tensor([[0, 0, 0, 1, 1]]))
    with pytest.raises(ValueError, match="pooling="):
        PackedPairClassifier(20, 3, CLS, "mean")
