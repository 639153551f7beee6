"""The memory counter against known allocation sizes; the complexity sweep's shape."""

import torch

from lamalib.analysis.complexity import (PeakMemory, loglog_slope, measure_complexity,
                                         peak_memory_bytes)
from lamalib.nn.self_attention.multihead import MultiHeadAttention


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def test_peak_memory_counts_live_storages_once():
    with PeakMemory() as counter:
        a = torch.zeros(100)
        b = torch.ones(200, dtype=torch.float64)
        view = b[:10]  # a view: no new memory
        size_a, size_b = _nbytes(a), _nbytes(b)
        del a
        c = torch.zeros(50)
        size_c = _nbytes(c)
    assert counter.peak == size_a + size_b
    assert counter.current == size_b + size_c
    del b
    assert counter.current == size_b + size_c  # the view keeps b's storage alive
    del view, c
    assert counter.current == 0


def test_views_and_in_place_ops_on_existing_tensors_allocate_nothing():
    x = torch.zeros(1000)
    w = torch.randn(10, 10, requires_grad=True)
    (w * 2).sum().backward()  # w.grad exists from now on
    with PeakMemory() as counter:
        x.add_(1)  # in place
        x.t()  # a view of x
        (w * 2).sum().backward()  # the new gradient is added into w.grad in place
    # only the temporaries: w * 2, its sum and the incoming gradients
    assert counter.peak < _nbytes(x)
    assert counter.peak <= 3 * _nbytes(w) + 8


def test_attention_weights_path_stores_the_n_by_n_matrix_fused_path_does_not():
    torch.manual_seed(0)
    B, H, n, D = 2, 4, 128, 32
    mha = MultiHeadAttention(D, H).eval()
    x = torch.randn(B, n, D)
    matrix = B * H * n * n * 4  # one float32 (B, H, n, n) tensor
    with torch.no_grad():
        slow = peak_memory_bytes(lambda: mha(x, x, x, need_weights=True),
                                 torch.device("cpu"))
        fast = peak_memory_bytes(lambda: mha(x, x, x), torch.device("cpu"))
    assert slow >= matrix
    assert fast < matrix


def test_loglog_slope_recovers_powers():
    rows = [{"layer": "sq", "n": n, "v": 3.0 * n**2} for n in (8, 16, 64)]
    rows += [{"layer": "lin", "n": n, "v": 5.0 * n} for n in (8, 16, 64)]
    assert abs(loglog_slope(rows, "sq", "v") - 2) < 1e-9
    assert abs(loglog_slope(rows, "lin", "v") - 1) < 1e-9


def test_sweep_has_every_layer_and_length():
    rows = measure_complexity([8, 16], d_model=8, n_heads=2, repeats=1)
    layers = {r["layer"] for r in rows}
    assert {"self-attention", "recurrent (GRU)", "convolution"} <= layers
    assert len(rows) == 2 * len(layers)
    assert all(r["seconds"] > 0 and r["peak_bytes"] > 0 for r in rows)


def test_layer_slopes_reads_time_and_memory_growth(capsys):
    from lamalib.analysis.complexity import layer_slopes
    rows = [{"layer": name, "n": n, "seconds": 1e-6 * n ** p, "peak_bytes": 8 * n}
            for name, p in (("quadratic", 2), ("linear", 1)) for n in (64, 128, 256)]
    slopes = layer_slopes(rows)
    assert list(slopes) == ["quadratic", "linear"]
    assert abs(slopes["quadratic"]["time"] - 2) < 1e-9
    assert abs(slopes["linear"]["time"] - 1) < 1e-9
    assert all(abs(s["memory"] - 1) < 1e-9 for s in slopes.values())
    assert "quadratic" in capsys.readouterr().out


def test_layer_slopes_from_n_reads_the_long_lengths_only(capsys):
    from lamalib.analysis.complexity import layer_slopes
    # memory: a fixed 20 kB plus 8 n; from n = 4096 on the linear part dominates
    rows = [{"layer": "band", "n": n, "seconds": 1e-6 * n, "peak_bytes": 2e4 + 8 * n,
             "other": 3.0 * n ** 2} for n in (64, 128, 4096, 8192, 16384)]
    slopes = layer_slopes(rows, from_n=4096,
                          keys={"memory": "peak_bytes", "other": "other"})["band"]
    assert list(slopes) == ["memory", "other", "memory_n>=4096", "other_n>=4096"]
    assert slopes["memory"] < 0.6 < slopes["memory_n>=4096"]
    assert abs(slopes["other_n>=4096"] - 2) < 1e-9


def test_allocator_peak_sees_what_was_allocated_and_freed():
    from lamalib.analysis.complexity import allocator_peak_bytes

    def work():
        a = torch.empty(10_000)  # 40,000 bytes
        del a
        b = torch.empty(5_000)  # 20,000 bytes: the peak stays at a's
        return b

    peak = allocator_peak_bytes(work, torch.device("cpu"))
    assert 40_000 <= peak < 40_000 + 20_000
