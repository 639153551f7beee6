"""lamalib.nn.recurrent.bigru.BiGRU against the from-scratch layer and unpadded nn.GRU
runs."""

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from lamalib.nn.recurrent.bigru import BiGRU
from lamalib.nn.recurrent.cells import Recurrent

TOL = dict(atol=1e-5, rtol=1e-5)


def _batch(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(4, 6, 5, generator=g)
    lengths = torch.tensor([3, 6, 1, 5])  # unsorted on purpose
    return x, torch.arange(6)[None, :] < lengths[:, None], lengths


def assert_same_function(encoder, x, mask, reference):
    """``encoder(x, mask)`` equals ``reference`` (computed from the same ``x`` and
    weights), outputs and the gradients of x and every weight, to 1e-12 (float64)."""
    weights = torch.randn_like(reference)
    params = [x, *encoder.parameters()]
    want = torch.autograd.grad((reference * weights).sum(), params)
    out = encoder(x, mask)
    got = torch.autograd.grad((out * weights).sum(), params)
    torch.testing.assert_close(out, reference, atol=1e-12, rtol=0)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-12, rtol=0)


def test_equals_from_scratch_bidirectional_gru():
    torch.manual_seed(0)
    x, mask, _ = _batch()
    scratch = Recurrent("gru", 5, 4, bidirectional=True)
    encoder = BiGRU(5, 4)
    # Recurrent.torch_parameters() uses nn.GRU's own parameter names.
    encoder.gru.load_state_dict(
        {k: v.detach() for k, v in scratch.torch_parameters().items()}
    )
    torch.testing.assert_close(encoder(x, mask), scratch(x, mask)[0], **TOL)


def test_padded_batch_equals_each_sequence_alone():
    torch.manual_seed(1)
    x, mask, lengths = _batch()
    encoder = BiGRU(5, 4)
    states = encoder(x, mask)
    assert states.shape == (4, 6, 8)
    for b, n in enumerate(lengths.tolist()):
        alone, _ = encoder.gru(x[b : b + 1, :n])  # plain nn.GRU, no padding at all
        torch.testing.assert_close(states[b, :n], alone[0], **TOL)
        assert torch.all(states[b, n:] == 0)


def test_no_mask_equals_full_mask():
    torch.manual_seed(2)
    x, _, _ = _batch()
    encoder = BiGRU(5, 4, num_layers=2)
    full = torch.ones(4, 6, dtype=torch.bool)
    torch.testing.assert_close(encoder(x), encoder(x, full), **TOL)


def test_full_mask_skips_packing_with_the_same_outputs_and_gradients():
    # A batch without padding runs nn.GRU unpacked (fast on the CPU): the same function
    # as the packed run, in float64, outputs and gradients alike.
    torch.manual_seed(4)
    x = torch.randn(3, 7, 5, dtype=torch.float64, requires_grad=True)
    encoder = BiGRU(5, 4, num_layers=2).double()
    full = torch.ones(3, 7, dtype=torch.bool)
    packed = pack_padded_sequence(x, torch.full((3,), 7), batch_first=True)
    reference = pad_packed_sequence(encoder.gru(packed)[0], batch_first=True)[0]
    assert_same_function(encoder, x, full, reference)


def test_empty_row_gives_zeros_and_left_padding_is_refused():
    torch.manual_seed(3)
    x, mask, _ = _batch()
    mask[2] = False
    assert torch.all(BiGRU(5, 4)(x, mask)[2] == 0)
    with pytest.raises(ValueError, match="right-padded"):
        BiGRU(5, 4)(x, mask.flip(1))


@pytest.mark.parametrize("layers", [1, 2])
def test_padded_cpu_path_equals_the_packed_run_outputs_and_gradients(layers):
    # On the CPU a padded batch is not packed: each row is reversed within its length
    # for the backward direction. The same function as packing, in float64, outputs
    # and gradients alike (an empty row included).
    torch.manual_seed(5)
    x = torch.randn(5, 8, 5, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([8, 3, 1, 6, 0])
    mask = torch.arange(8)[None, :] < lengths[:, None]
    encoder = BiGRU(5, 4, num_layers=layers).double()
    packed = pack_padded_sequence(x, lengths.clamp(min=1), batch_first=True,
                                  enforce_sorted=False)
    reference = pad_packed_sequence(encoder.gru(packed)[0], batch_first=True,
                                    total_length=8)[0] * mask[..., None]
    assert_same_function(encoder, x, mask, reference)


def test_padded_cpu_path_drops_out_between_layers_like_nn_gru():
    # Dropout between stacked layers, in training only: with p = 1 the second layer
    # sees zeros, so its states are those of an all-zero input; in eval mode, not.
    torch.manual_seed(6)
    x, mask, lengths = _batch()
    encoder = BiGRU(5, 4, num_layers=2, dropout=1.0)
    zero_input = BiGRU(4 * 2, 4)
    zero_input.gru.load_state_dict({k.replace("_l1", "_l0"): v for k, v in
                                    encoder.gru.state_dict().items() if "_l1" in k})
    encoder.train()
    torch.testing.assert_close(encoder(x, mask),
                               zero_input(torch.zeros(4, 6, 8), mask), **TOL)
    encoder.eval()
    assert not torch.allclose(encoder(x, mask), zero_input(torch.zeros(4, 6, 8), mask))
