"""lamalib.analysis.timing: what is timed and recorded (no timing is asserted)."""

import torch

from lamalib.analysis.timing import hardware, median_seconds


def test_median_seconds_calls_warmup_plus_repeats():
    calls = []
    seconds = median_seconds(lambda: calls.append(1), repeats=4, warmup=2)
    assert len(calls) == 6
    assert seconds >= 0.0


def test_hardware_names_torch_version():
    info = hardware()
    assert info["torch"] == torch.__version__
    assert info["threads"] == torch.get_num_threads()
    assert set(info) == {"device", "torch", "cuda", "threads", "date"}
