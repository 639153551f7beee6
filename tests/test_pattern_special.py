"""The "special" pattern (a query attends to [CLS] / [SEP]; Clark et al., 2019) and
the global relevance of uniform attention (lamalib.nn.patterns), chapter 8."""

import pytest
import torch

from lamalib.nn.patterns import (bind_pattern, pattern_cells, pattern_mask, relevance,
                                 uniform_relevance)

CLS, SEP = 2, 3


def _docs():
    tokens = torch.tensor([[CLS, 7, 8, 7, SEP, 0, 0],
                           [CLS, 9, SEP, 5, 6, 5, SEP]])  # (2, 7)
    return tokens, tokens != 0


def test_special_cells_are_the_special_keys_of_every_real_query():
    tokens, mask = _docs()
    special = bind_pattern("special", ids=(CLS, SEP))
    cells = pattern_cells(special, tokens, mask)  # (2, 7, 7)
    for b in range(2):
        for i in range(7):
            for j in range(7):
                want = bool(mask[b, i] and mask[b, j]
                            and tokens[b, j].item() in (CLS, SEP))
                assert bool(cells[b, i, j]) == want, (b, i, j)
    assert special.__name__ == "special"
    # every real query has a special key, so its mask row is its cells
    rows = mask[:, :, None]  # (B, T, 1): pad queries' rows are left free
    assert torch.equal(pattern_mask(special, tokens, mask) & rows, cells)


def test_special_needs_its_ids():
    tokens, mask = _docs()
    with pytest.raises(ValueError, match="bind_pattern"):
        pattern_cells("special", tokens, mask)


@pytest.mark.parametrize("name", ["previous", "next", "matching", "special"])
def test_uniform_relevance_is_eq_1_on_uniform_attention(name):
    tokens, mask = _docs()
    pattern = bind_pattern("special", ids=(CLS, SEP)) if name == "special" else name
    cells = pattern_cells(pattern, tokens, mask)  # (B, T, T)
    n = mask.sum(-1)  # (B,)
    even = (mask[:, None, :] & mask[:, :, None]).float() / n[:, None, None]
    got = relevance(even[:, None], cells, mask)[:, 0]  # (B,)
    torch.testing.assert_close(uniform_relevance(cells, mask), got)
    if name == "special":  # 2 and 3 special keys for every query: k |x| / |x|^2
        torch.testing.assert_close(uniform_relevance(cells, mask),
                                   torch.tensor([2 / 5, 3 / 7]))
