"""The ``clock`` argument of lamalib.analysis.timing (a fake clock: nothing is timed),
and the CPU set-up that picks the clock."""

import time

import torch

from lamalib.analysis.timing import compare_seconds, median_seconds, quiet_cpu


def fake_clock(steps):
    """A clock that each ``fn`` advances by a chosen amount."""
    now = [0.0]

    def clock():
        return now[0]

    def advance(name):
        now[0] += steps[name]

    return clock, advance


def test_median_seconds_reads_the_given_clock():
    clock, advance = fake_clock({"a": 0.25})
    assert median_seconds(lambda: advance("a"), repeats=3, clock=clock) == 0.25


def test_compare_seconds_reads_the_given_clock():
    clock, advance = fake_clock({"a": 2.0, "b": 0.5})
    got = compare_seconds({k: (lambda k=k: advance(k)) for k in "ab"}, repeats=3,
                          clock=clock)
    assert got == {"a": 2.0, "b": 0.5}


def test_quiet_cpu_takes_one_thread_and_the_threads_clock():
    threads = torch.get_num_threads()
    try:
        malloc, clock = quiet_cpu(torch.device("cpu"))
        assert clock is time.thread_time and torch.get_num_threads() == 1
        assert malloc is None or malloc["allocator"] == "glibc malloc"
    finally:
        torch.set_num_threads(threads)
    assert quiet_cpu(torch.device("meta")) == (None, time.perf_counter)  # not a CPU
