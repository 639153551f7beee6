"""The scale-distribution controller (Guo et al. 2020, eqs. 11-12) against the
formula computed independently here and against the paper's worked example.

The worked example (alpha = 0.5, N' = 10, 3 layers, 5 scales) is data in this test,
never in the library: n^1 = {5,2,2,1,0}, n^2 = {4,2,2,1,1}, n^3 = {2,2,2,2,2}.
"""

import math

import pytest
import torch

from lamalib.nn.multiscale.scales import (READINGS, heads_for_layer, round_heads,
                                          scale_distribution)

PAPER_EXAMPLE = [[5, 2, 2, 1, 0], [4, 2, 2, 1, 1], [2, 2, 2, 2, 2]]


def formula_shares(alpha, n_heads, n_scales, distance):
    """softmax(z) N' with z_k = alpha * distance * (|Omega| - 1 - k), by hand."""
    z = [alpha * distance * (n_scales - 1 - k) for k in range(n_scales)]
    e = [math.exp(v) for v in z]
    return [n_heads * v / sum(e) for v in e]


@pytest.mark.parametrize("reading", sorted(READINGS))
def test_logits_follow_the_recursion(reading):
    alpha, L, S = 0.7, 4, 5
    z = READINGS[reading](alpha, L, S)
    assert torch.all(z[-1] == 0) and torch.all(z[:, -1] == 0)  # the base cases
    for l in range(L - 1):
        step = alpha * (L - 1 - l if reading == "distance" else 1)
        for k in range(S - 1):
            assert z[l, k] == pytest.approx(z[l, k + 1] + step)


@pytest.mark.parametrize("alpha", [-1.0, 0.0, 0.3, 0.5, 2.0])
@pytest.mark.parametrize("n_heads,S", [(10, 5), (8, 3), (12, 5), (3, 4)])
def test_counts_sum_to_N_and_stay_within_one_head_of_the_share(alpha, n_heads, S):
    for reading in READINGS:
        got = scale_distribution(alpha, n_heads, 3, S, reading)
        for l, counts in enumerate(got):
            assert sum(counts) == n_heads and min(counts) >= 0
            distance = 0 if l == 2 else (1 if reading == "printed" else 2 - l)
            shares = formula_shares(alpha, n_heads, S, distance)
            assert all(abs(c - s) < 1 for c, s in zip(counts, shares))


def test_rounding_is_floor_of_cumulative_shares():
    shares = torch.tensor([4.29, 2.60, 1.58, 0.96, 0.57])  # sums to 10
    # cumulative 4.29 6.89 8.47 9.43 10 -> floors 4 6 8 9 10 -> counts 4 2 2 1 1
    assert round_heads(shares, 10) == [4, 2, 2, 1, 1]


def test_alpha_zero_gives_every_layer_the_same_uniform_split():
    assert scale_distribution(0.0, 10, 4, 5) == [[2] * 5] * 4


def test_the_printed_recursion_against_the_paper_example():
    got = scale_distribution(0.5, 10, 3, 5, "printed")
    assert got[2] == PAPER_EXAMPLE[2]  # top layer uniform
    assert got[1] == PAPER_EXAMPLE[1]  # the layer below the top matches too
    # ...but, as printed, every layer below the top is the same, so n^1 = n^2,
    # while the paper's n^1 differs: the printed equation cannot give the example.
    assert got[0] == got[1] != PAPER_EXAMPLE[0]


def test_the_distance_reading_against_the_paper_example():
    got = scale_distribution(0.5, 10, 3, 5, "distance")
    assert got[1:] == PAPER_EXAMPLE[1:]
    assert got[0] != PAPER_EXAMPLE[0]  # more peaked: [6, 2, 1, 0, 1]
    assert got[0][0] > PAPER_EXAMPLE[0][0]


def test_heads_for_layer_lists_one_scale_per_head():
    assert heads_for_layer([2, 0, 1], [1, 3, "N/4"]) == [1, 1, "N/4"]
    with pytest.raises(ValueError, match="candidate"):
        heads_for_layer([1, 1], [1, 3, 5])


def test_unknown_reading_names_the_known_ones():
    with pytest.raises(ValueError, match="printed"):
        scale_distribution(0.5, 10, 3, 5, "guess")
