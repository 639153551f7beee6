"""The Multi-Scale Transformer classifier: padding invariance, the [CLS] node and the
max-pool, the controller's plan, options through the registry, pretrained vectors,
and its place in the experiments grid."""

import pytest
import torch

from lamalib.models import available_models, build_model, model_options
from lamalib.nn.pooling import masked_max
from lamalib.nn.multiscale.scales import scale_distribution
from lamalib.testing import assert_padding_invariant

SMALL = dict(embed_dim=12, d_model=16, n_layers=2, n_heads=4, scales="1,3,N/4,N/2",
             mlp_hidden=8, dropout=0.0)


def test_registered_as_a_classifier_with_its_options():
    assert "ms_transformer" in available_models("classifier")
    options = model_options("ms_transformer")
    for name in ("alpha", "scales", "layer_scales", "n_heads", "reading", "kernel"):
        assert name in options
    with pytest.raises(TypeError, match="alpha"):
        build_model("ms_transformer", vocab_size=10, num_classes=2, alfa=0.5)


def test_padding_never_changes_the_logits():
    torch.manual_seed(0)
    model = build_model("ms_transformer", vocab_size=30, num_classes=3, **SMALL)
    assert_padding_invariant(model, [[5, 6, 7, 8, 9, 10, 11], [3, 4], [12]])


def test_cls_state_and_max_pool_feed_the_classifier():
    torch.manual_seed(1)
    model = build_model("ms_transformer", vocab_size=30, num_classes=3, **SMALL).eval()
    tokens = torch.tensor([[5, 6, 7, 0, 0], [8, 9, 10, 11, 12]])
    mask = tokens != 0
    h, full = model.encode(tokens, mask)
    assert h.shape == (2, 6, 16) and full[:, 0].all()  # [CLS] prepended, always real
    assert torch.equal(full[:, 1:], mask)
    want = model.classifier(torch.cat([h[:, 0], masked_max(h, full)], -1))
    torch.testing.assert_close(model(tokens, mask), want)
    # the [CLS] node is a learned vector: changing it changes the logits
    with torch.no_grad():
        model.cls.add_(1.0)
    assert not torch.allclose(model(tokens, mask), want)


def test_layers_follow_the_controller_or_the_explicit_scales():
    model = build_model("ms_transformer", vocab_size=10, num_classes=2,
                        **{**SMALL, "alpha": 1.0})
    counts = scale_distribution(1.0, 4, 2, 4)
    cands = [1, 3, "N/4", "N/2"]
    for layer, c in zip(model.layers, counts):
        want = [s for s, n in zip(cands, c) for _ in range(n)]
        assert layer.attention.scales == want
    explicit = build_model("ms_transformer", vocab_size=10, num_classes=2,
                           **{**SMALL, "layer_scales": "3,3,3,3|1,3,N/8,N/2"})
    assert [la.attention.scales for la in explicit.layers] == [
        [3, 3, 3, 3], [1, 3, "N/8", "N/2"]]
    with pytest.raises(ValueError, match="layer_scales"):
        build_model("ms_transformer", vocab_size=10, num_classes=2,
                    **{**SMALL, "layer_scales": "3,3|1,1"})


def test_no_positional_embedding_only_the_scales_see_order():
    # With every head global (scale >= T) and no positions, permuting the tokens
    # cannot change the prediction; with scale-1 heads it does.
    torch.manual_seed(2)
    glob = build_model("ms_transformer", vocab_size=30, num_classes=3,
                       **{**SMALL, "layer_scales": "99,99,99,99|99,99,99,99"}).eval()
    loc = build_model("ms_transformer", vocab_size=30, num_classes=3,
                      **{**SMALL, "layer_scales": "3,3,3,3|3,3,3,3"}).eval()
    own = build_model("ms_transformer", vocab_size=30, num_classes=3,  # width 1:
                      **{**SMALL, "layer_scales": "1,1,1,1|1,1,1,1"}).eval()  # itself
    t = torch.tensor([[5, 6, 7, 8, 9, 10]])
    p = t[:, torch.tensor([3, 0, 5, 1, 4, 2])]
    m = torch.ones_like(t, dtype=torch.bool)
    torch.testing.assert_close(glob(t, m), glob(p, m))
    torch.testing.assert_close(own(t, m), own(p, m))  # each word sees only itself
    assert not torch.allclose(loc(t, m), loc(p, m))


def test_the_radius_reading_is_an_option_of_the_model():
    wide = build_model("ms_transformer", vocab_size=10, num_classes=2,
                       **{**SMALL, "window": "radius", "layer_scales": "0,2,4,6|1,1,1,1"})
    assert wide.layers[0].attention.window == "radius"
    with pytest.raises(ValueError, match="odd"):
        build_model("ms_transformer", vocab_size=10, num_classes=2,
                    **{**SMALL, "layer_scales": "0,2,4,6|1,1,1,1"})


def test_pretrained_vectors_start_the_embeddings():
    vectors = torch.randn(10, 12)
    model = build_model("ms_transformer", vocab_size=10, num_classes=2,
                        pretrained=vectors, freeze_embeddings=True, **SMALL)
    assert torch.equal(model.embed.weight, vectors)
    assert not model.embed.weight.requires_grad


def test_in_the_msa_paper_grid():
    from lamalib.experiments.papers import PAPERS, paper_spec_fields
    paper = PAPERS["msa"]
    assert "ms_transformer" in paper.models
    fields = paper_spec_fields(paper, "ms_transformer", "sst5")
    assert fields["model"] == "ms_transformer"
    model = build_model("ms_transformer", vocab_size=10, num_classes=5,
                        **fields["model_options"])
    assert len(model.layers) == model.config.n_layers
