"""Positional encodings against the formula of Vaswani et al. written as loops."""

import math

import pytest
import torch

from lamalib.nn.transformer.positional import (LearnedPositionalEmbedding,
                                               SinusoidalPositionalEncoding,
                                               build_positional, relative_position_map,
                                               sinusoidal_table)


def test_table_matches_paper_formula_loop():
    T, D = 7, 10
    table = sinusoidal_table(T, D)
    for pos in range(T):
        for i in range(D // 2):
            angle = pos / 10000 ** (2 * i / D)
            assert table[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            cos = table[pos, 2 * i + 1].item()
            assert cos == pytest.approx(math.cos(angle), abs=1e-6)


@pytest.mark.parametrize("k", [0, 1, 5, 17])
def test_shift_is_a_fixed_linear_map(k):
    T, D = 40, 16
    table = sinusoidal_table(T + k, D)  # (T + k, D)
    M = relative_position_map(k, D)  # (D, D)
    shifted = table[:T] @ M.T  # row pos: M_k PE(pos)
    torch.testing.assert_close(shifted, table[k : T + k], atol=1e-5, rtol=0)


def test_shift_map_is_orthogonal_and_composes():
    D = 12
    M2, M3, M5 = (relative_position_map(k, D) for k in (2, 3, 5))
    torch.testing.assert_close(M2 @ M2.T, torch.eye(D), atol=1e-5, rtol=0)
    torch.testing.assert_close(M2 @ M3, M5, atol=1e-5, rtol=0)


def test_sinusoidal_module_adds_table_and_extends_past_max_len():
    D = 8
    pe = SinusoidalPositionalEncoding(D, max_len=4)
    x = torch.randn(2, 9, D)
    out = pe(x)
    torch.testing.assert_close(out - x, sinusoidal_table(9, D)[None].expand(2, -1, -1))


def test_learned_embedding_adds_position_vectors_and_refuses_longer_inputs():
    torch.manual_seed(0)
    pe = LearnedPositionalEmbedding(6, max_len=5)
    x = torch.zeros(3, 4, 6)
    out = pe(x)
    torch.testing.assert_close(out[1], pe.embedding.weight[:4])
    with pytest.raises(ValueError, match="max_len"):
        pe(torch.zeros(1, 6, 6))


def test_learned_positions_beyond_training_length_get_no_gradient():
    pe = LearnedPositionalEmbedding(4, max_len=10)
    pe(torch.randn(2, 6, 4)).pow(2).sum().backward()
    grad = pe.embedding.weight.grad
    assert grad[:6].abs().sum() > 0
    assert torch.all(grad[6:] == 0)


def test_build_by_name_and_unknown_name():
    assert isinstance(build_positional("learned", 8), LearnedPositionalEmbedding)
    assert isinstance(build_positional("sinusoidal", 8), SinusoidalPositionalEncoding)
    with pytest.raises(ValueError, match="sinusoidal"):
        build_positional("rotary", 8)
