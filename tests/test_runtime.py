import pytest
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
