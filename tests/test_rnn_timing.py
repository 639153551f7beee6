"""lamalib.analysis.timing: what is timed and recorded (no timing is asserted)."""

import json

import torch

from lamalib.analysis.timing import (
    compare_seconds,
    hardware,
    median_seconds,
    save_benchmark,
    steady_malloc,
)


def test_median_seconds_calls_warmup_plus_repeats():
    calls = []
    seconds = median_seconds(lambda: calls.append(1), repeats=4, warmup=2)
    assert len(calls) == 6
    assert seconds >= 0.0


def test_hardware_names_torch_version():
    info = hardware()
    assert info["torch"] == torch.__version__
    assert info["threads"] == torch.get_num_threads()
    assert {"device", "name", "torch", "cuda", "threads", "date"} <= set(info)


def test_save_benchmark_records_provenance(tmp_path):
    out = save_benchmark(tmp_path / "b.json", "demo", {"n": 1}, {"ratio": 2.0})
    record = json.loads(out.read_text())
    assert record["model"] == "demo" and record["metrics"] == {"ratio": 2.0}
    assert record["hardware"]["torch"] == torch.__version__
    assert "git_commit" in record


def test_compare_seconds_times_each_function_in_turns():
    order = []
    seconds = compare_seconds(
        {"a": lambda: order.append("a"), "b": lambda: order.append("b")},
        repeats=3,
        warmup=1,
    )
    assert order == ["a", "b"] + ["a", "b"] * 3  # warmups, then alternating turns
    assert set(seconds) == {"a", "b"} and all(s >= 0 for s in seconds.values())


def test_steady_malloc_returns_what_it_set_or_none():
    settings = steady_malloc()
    if settings is not None:  # glibc: the thresholds to record with the results
        assert settings["M_MMAP_THRESHOLD"] == 32 << 20
        assert settings["allocator"] == "glibc malloc"
    assert torch.ones(10_000_000).sum() == 10_000_000  # memory still works
