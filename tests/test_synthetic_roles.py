"""Token roles of the synthetic task and attention weight summed by role."""

import pytest
import torch

from lamalib.analysis.roles import weight_by_role
from lamalib.data import load_dataset
from lamalib.data.datasets.synthetic import (CONTRAST, NEGATIVE, NEGATORS, POSITIVE,
                                             ROLES, token_roles)


@pytest.mark.parametrize("grammar", ["order", "keyword"])
def test_roles_match_the_words(grammar):
    d = load_dataset("synthetic_sentiment", "valid", n=200, grammar=grammar)
    for toks, ev, ops, kind in zip(d.tokens(), d.extras["keyword_positions"],
                                   d.extras["opinion_positions"],
                                   d.extras["construction"]):
        roles = token_roles(len(toks), ev, ops)
        for tok, role in zip(toks, roles):
            if role == "operator":
                assert tok in NEGATORS + [CONTRAST]
            elif role in ("governed", "other opinion"):
                assert tok in POSITIVE + NEGATIVE
            else:
                assert role == "filler" and tok not in POSITIVE + NEGATIVE + NEGATORS
        assert roles.count("operator") == (kind != "plain")
        assert roles.count("governed") == 1
        assert roles.count("other opinion") == (grammar == "order")


def test_weight_by_role_equals_a_loop():
    torch.manual_seed(0)
    roles = ["filler", "operator", "governed", "filler", "other opinion"]
    weights = torch.softmax(torch.randn(2, 3, 5), -1)  # (H, T, T)
    got = weight_by_role(weights, roles, ROLES)
    for k, name in enumerate(ROLES):
        want = sum(weights[..., t] for t, r in enumerate(roles) if r == name)
        assert torch.allclose(got[..., k], want)
    assert torch.allclose(got.sum(-1), torch.ones(2, 3))
    assert weight_by_role(weights, roles, ["missing"]).abs().sum() == 0
    with pytest.raises(ValueError, match="tokens"):
        weight_by_role(weights, roles[:4], ROLES)
