"""The from-scratch cells of lamalib.nn.recurrent.cells against nn.RNN / nn.LSTM /
nn.GRU."""

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from lamalib.nn.recurrent.cells import (GRUCell, Recurrent, init_memory_bias,
                                        input_gradient_norms)

TOL = dict(atol=1e-5, rtol=1e-5)


def _batch(B=3, T=7, E=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(B, T, E, generator=g)
    lengths = torch.tensor([T, 4, 1][:B])
    mask = torch.arange(T)[None, :] < lengths[:, None]  # right padding, one full row
    return x, mask, lengths


def _run_torch(module, x, lengths, kind):
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out, h_n = module(packed)
    states, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    h_n = h_n[0] if kind == "lstm" else h_n  # (dirs, B, D)
    return states, torch.cat(list(h_n), dim=-1)  # (B, T, dirs*D), (B, dirs*D)


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_copied_into_torch_same_outputs_and_gradients(kind, bidirectional):
    torch.manual_seed(1)
    x, mask, lengths = _batch()
    ours = Recurrent(kind, 5, 4, bidirectional=bidirectional)
    theirs = ours.to_torch()
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    states, last = ours(x1, mask)
    ref_states, ref_last = _run_torch(theirs, x2, lengths, kind)
    torch.testing.assert_close(states, ref_states, **TOL)
    torch.testing.assert_close(last, ref_last, **TOL)

    # A loss that weighs every output differently, so every gradient entry is tested.
    w = torch.randn_like(states)
    v = torch.randn_like(last)
    ((states * w).sum() + (last * v).sum()).backward()
    ((ref_states * w).sum() + (ref_last * v).sum()).backward()
    torch.testing.assert_close(x1.grad, x2.grad, **TOL)

    # Pull PyTorch's parameter gradients back through our weight mapping (a linear map,
    # so its vector-Jacobian product is exact) and compare with our own gradients.
    mapped = ours.torch_parameters()
    # bias_hh is a constant 0 (our cells have one bias), so it has no gradient to pull.
    names = [n for n in mapped if mapped[n].requires_grad]
    pulled = torch.autograd.grad(
        [mapped[n] for n in names],
        list(ours.parameters()),
        grad_outputs=[dict(theirs.named_parameters())[n].grad for n in names],
        allow_unused=True,
    )
    for (name, p), g in zip(ours.named_parameters(), pulled):
        torch.testing.assert_close(p.grad, g, **TOL, msg=f"gradient of {name}")


def test_gru_follows_lama_equations_by_hand():
    torch.manual_seed(2)
    cell = GRUCell(3, 2)
    x, h = torch.randn(4, 3), torch.randn(4, 2)
    W_z, W_r, W_h = cell.x_proj.weight.chunk(3)
    b_z, b_r, b_h = cell.x_proj.bias.chunk(3)
    U_z, U_r, U_h = cell.h_proj.weight.chunk(3)
    z = torch.sigmoid(x @ W_z.T + h @ U_z.T + b_z)  # LAMA eq. (1)
    r = torch.sigmoid(x @ W_r.T + h @ U_r.T + b_r)  # LAMA eq. (2)
    h_tilde = torch.tanh(x @ W_h.T + r * (h @ U_h.T) + b_h)  # LAMA eq. (3)
    expected = (1 - z) * h + z * h_tilde  # LAMA eq. (4)
    torch.testing.assert_close(cell(x, h), expected)


def test_gru_update_gate_closed_copies_the_state():
    # Eq. (4): z = 0 keeps h_{t-1}; z = 1 replaces it by the candidate.
    torch.manual_seed(3)
    cell = GRUCell(3, 2)
    x, h = torch.randn(4, 3), torch.randn(4, 2)
    with torch.no_grad():
        cell.x_proj.bias[:2] = -100.0  # b_z: z = sigmoid(-100) = 0 in float32
    torch.testing.assert_close(cell(x, h), h)


def test_padding_never_changes_real_states():
    torch.manual_seed(4)
    x, mask, lengths = _batch()
    layer = Recurrent("gru", 5, 4, bidirectional=True)
    states, last = layer(x, mask)
    for b, n in enumerate(lengths.tolist()):
        alone, alone_last = layer(x[b : b + 1, :n])  # the sequence without any padding
        torch.testing.assert_close(states[b, :n], alone[0], **TOL)
        torch.testing.assert_close(last[b], alone_last[0], **TOL)
        assert torch.all(states[b, n:] == 0)


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_input_gradient_norms_match_torch_autograd(kind):
    torch.manual_seed(5)
    x = torch.randn(2, 9, 3)
    layer = Recurrent(kind, 3, 4)
    theirs = layer.to_torch()
    x_ref = x.clone().requires_grad_()
    _, h_n = theirs(x_ref)
    h_n = h_n[0] if kind == "lstm" else h_n
    h_n[-1].sum().backward()
    expected = x_ref.grad.norm(dim=-1).mean(dim=0)
    torch.testing.assert_close(input_gradient_norms(layer, x), expected, **TOL)


def test_unknown_cell_says_what_exists():
    with pytest.raises(ValueError, match="gru"):
        Recurrent("transformer", 3, 4)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_memory_bias_sets_the_keep_gate(kind):
    # At zero input and zero state every gate sees only its bias, so the gate that
    # decides how much of the old state survives must be sigmoid(value) exactly.
    layer = init_memory_bias(Recurrent(kind, 3, 4), 2.0)
    cell = layer.cells[0]
    pre = cell.x_proj(torch.zeros(1, 3)) + cell.h_proj(torch.zeros(1, 4))  # (1, G*D)
    if kind == "lstm":
        keep = torch.sigmoid(pre.chunk(4, dim=-1)[1])  # forget gate f
    else:
        keep = 1 - torch.sigmoid(pre.chunk(3, dim=-1)[0])  # 1 - update gate z
    expected = torch.full((1, 4), torch.sigmoid(torch.tensor(2.0)).item())
    torch.testing.assert_close(keep, expected)
    with pytest.raises(ValueError, match="no gate"):
        init_memory_bias(Recurrent("rnn", 3, 4), 2.0)
