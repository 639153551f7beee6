"""The split of the Transformer and attention code: one concept per module, and the
old import paths that the chapters use still give the very same objects."""

import importlib

import pytest

# old path -> the names the chapters and the tests import from it
FACADES = {
    "lamalib.nn.transformer": [
        "FeedForward", "PostNormResidual", "PreNormResidual", "RESIDUALS",
        "residual_class", "EncoderLayer", "DecoderLayer", "Encoder", "Decoder",
        "Embeddings", "TokenEncoder", "EncoderDecoder",
    ],
    "lamalib.nn.attention": [
        "SCORES", "build_score", "Score", "AdditiveScore", "ConcatScore", "DotScore",
        "ScaledDotScore", "GeneralScore", "LocationScore", "CosineScore",
        "ACTIVATIONS", "expand_key_mask",
    ],
}


@pytest.mark.parametrize("facade", sorted(FACADES))
def test_old_import_paths_reexport_the_defining_modules_objects(facade):
    module = importlib.import_module(facade)
    for name in FACADES[facade]:
        obj = getattr(module, name)
        home = getattr(obj, "__module__", None)
        if home is None:  # a dict (SCORES, RESIDUALS): no defining module to check
            continue
        assert home != facade, f"{name} is still defined in {facade}"
        assert getattr(importlib.import_module(home), name) is obj


def test_every_score_is_registered_by_importing_the_package():
    from lamalib.nn.scores import SCORES

    want = {"additive", "concat", "dot", "scaled_dot", "general", "location", "cosine"}
    assert want <= set(SCORES)
