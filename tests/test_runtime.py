import os
import random
import sys
import types

import pytest
import numpy as np
import torch

from lamalib import runtime


def test_profile_reads_env(monkeypatch):
    monkeypatch.setenv("LAMALIB_PROFILE", "full")
    assert runtime.profile() == "full"
    assert runtime.by_profile(quick=1, full=2) == 2
    monkeypatch.setenv("LAMALIB_PROFILE", " Quick ")
    assert runtime.profile() == "quick"
    assert runtime.by_profile(quick=1, full=2) == 1


def test_profile_default_follows_cuda(monkeypatch):
    monkeypatch.delenv("LAMALIB_PROFILE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert runtime.profile() == "full"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert runtime.profile() == "quick"


def test_bad_profile_names_the_choices(monkeypatch):
    monkeypatch.setenv("LAMALIB_PROFILE", "fast")
    with pytest.raises(ValueError, match="quick"):
        runtime.profile()


def test_seed_everything_repeats_random_draws():
    runtime.seed_everything(3)
    a = torch.randn(5)
    runtime.seed_everything(3)
    assert torch.equal(a, torch.randn(5))


def test_device_override_and_colab(monkeypatch):
    monkeypatch.setenv("LAMALIB_DEVICE", "cpu")
    assert runtime.get_device() == torch.device("cpu")
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    assert runtime.is_colab() is False
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab")
    assert runtime.is_colab() is True


def test_setup_seeds_and_uses_one_thread_for_quick_on_cpu(monkeypatch):
    threads = torch.get_num_threads()
    try:
        monkeypatch.setenv("LAMALIB_PROFILE", "quick")
        monkeypatch.setenv("LAMALIB_DEVICE", "cpu")
        summary = runtime.setup(seed=5)
        a = torch.randn(3)
        runtime.setup(seed=5)
        assert torch.equal(a, torch.randn(3))
        assert torch.get_num_threads() == 1 and "threads: 1" in summary
    finally:
        torch.set_num_threads(threads)


class _FakeColabOutput(types.ModuleType):
    """Stands in for ``google.colab.output``: counts the calls that matter."""

    def __init__(self):
        super().__init__("google.colab.output")
        self.calls = 0

    def enable_custom_widget_manager(self):
        self.calls += 1


@pytest.fixture
def fake_colab(monkeypatch):
    """A stub ``google.colab`` in ``sys.modules``, and a widget manager not yet on."""
    output = _FakeColabOutput()
    colab = types.ModuleType("google.colab")
    colab.output = output
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    monkeypatch.setattr(runtime, "_widget_manager_on", False)
    monkeypatch.setenv("LAMALIB_PROFILE", "quick")
    monkeypatch.setenv("LAMALIB_DEVICE", "cpu")
    threads = torch.get_num_threads()
    yield output
    torch.set_num_threads(threads)


def test_colab_with_ipywidgets_8_enables_the_widget_manager_once(fake_colab,
                                                                  monkeypatch):
    monkeypatch.setattr(runtime, "ipywidgets_version", lambda: "8.1.5")
    assert runtime.is_colab()
    first = runtime.setup(seed=0)
    second = runtime.setup(seed=0)
    assert fake_colab.calls == 1
    assert runtime.widget_manager_enabled()
    assert first.count("custom widget manager") == 1 and "8.1.5" in first
    assert "widget manager" not in second  # said once, not by every chapter cell
    assert first.splitlines()[0] == second  # the usual summary line is unchanged


def test_colab_with_ipywidgets_7_leaves_the_widget_manager_alone(fake_colab,
                                                                 monkeypatch):
    monkeypatch.setattr(runtime, "ipywidgets_version", lambda: "7.7.1")
    summary = runtime.setup(seed=0)
    assert fake_colab.calls == 0 and not runtime.widget_manager_enabled()
    assert "widget" not in summary


def test_outside_colab_the_widget_manager_is_never_called(monkeypatch):
    output = _FakeColabOutput()
    # importable, but this is not Colab: google.colab was never imported by the kernel
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.setattr(runtime, "_widget_manager_on", False)
    monkeypatch.setattr(runtime, "ipywidgets_version", lambda: "8.1.5")
    assert not runtime.is_colab()
    assert runtime.enable_colab_widgets() is None
    assert output.calls == 0


def test_colab_tag_without_google_colab_does_not_fail(monkeypatch):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setitem(sys.modules, "google.colab.output", None)  # import fails
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab")
    monkeypatch.setattr(runtime, "_widget_manager_on", False)
    monkeypatch.setattr(runtime, "ipywidgets_version", lambda: "8.1.5")
    assert runtime.enable_colab_widgets() is None
    assert not runtime.widget_manager_enabled()


def test_ipywidgets_version_is_the_one_this_process_imports():
    ipywidgets = pytest.importorskip("ipywidgets")
    assert runtime.ipywidgets_version() == ipywidgets.__version__
    expected = os.environ.get("LAMALIB_EXPECT_IPYWIDGETS")
    if expected:  # set by tools/ipywidgets7_tests.sh: prove that run imports 7.7.1
        assert ipywidgets.__version__ == expected, ipywidgets.__file__


def test_lamalib_seed_shifts_every_seed(monkeypatch):
    monkeypatch.delenv("LAMALIB_SEED", raising=False)
    assert runtime.base_seed() == 0 and runtime.seed(3) == 3
    monkeypatch.setenv("LAMALIB_SEED", "2")
    assert runtime.base_seed() == 2 and runtime.seed() == 2 and runtime.seed(3) == 5
    with runtime.exact_seeds():
        assert runtime.seed(3) == 3
    assert runtime.seed(3) == 5
    # seed_everything(k) under the shift draws what seed k + 2 draws without it
    runtime.seed_everything(1)
    shifted = (torch.rand(3), random.random(), np.random.rand())
    monkeypatch.delenv("LAMALIB_SEED")
    runtime.seed_everything(3)
    assert torch.equal(shifted[0], torch.rand(3))
    assert shifted[1:] == (random.random(), np.random.rand())


@pytest.mark.parametrize("value", ["-1", "one", "1.5"])
def test_a_bad_lamalib_seed_is_named(monkeypatch, value):
    monkeypatch.setenv("LAMALIB_SEED", value)
    with pytest.raises(ValueError, match="LAMALIB_SEED"):
        runtime.seed(0)


def test_lamalib_seed_shifts_the_librarys_generators(monkeypatch):
    from lamalib.data import load_dataset, stratified_split
    from lamalib.data.datasets.mirror_sum import mirror_sum_data

    def draws():
        ds = load_dataset("synthetic_sentiment", split="train")
        train, _ = stratified_split(ds, 0.2, seed=0)
        x, _ = mirror_sum_data(4, N=3, d=2, K=1, seed=0)
        return ds.texts[:20], train.texts[:20], x

    monkeypatch.delenv("LAMALIB_SEED", raising=False)
    base = draws()
    monkeypatch.setenv("LAMALIB_SEED", "1")
    shifted = draws()
    assert base[0] != shifted[0] and base[1] != shifted[1]
    assert not torch.equal(base[2], shifted[2])
    with runtime.exact_seeds():
        again = draws()
    assert again[0] == base[0] and again[1] == base[1] and torch.equal(again[2], base[2])
