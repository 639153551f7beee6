"""Fixtures shared by the test files."""

import pytest
import torch


@pytest.fixture
def one_thread():
    """Run a test on one torch thread: tiny matmuls on a busy machine lose more to
    syncing two threads than they gain."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """Every test writes its caches and downloads (``$LAMALIB_CACHE``) into a folder of
    its own, never into the checkout's ``data/``, and its results files by default
    (``$LAMALIB_RESULTS``) into another, never into the current folder."""
    monkeypatch.setenv("LAMALIB_CACHE", str(tmp_path / "lamalib-cache"))
    monkeypatch.setenv("LAMALIB_RESULTS", str(tmp_path / "lamalib-results"))


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """An empty data directory (``$LAMALIB_DATA``) of the test's own."""
    path = tmp_path / "cache"
    path.mkdir()
    monkeypatch.setenv("LAMALIB_DATA", str(path))
    return path


@pytest.fixture
def offline(monkeypatch):
    """No network: every ``urlopen`` fails at once, as DNS does without one."""
    import urllib.error
    import urllib.request

    def refuse(*args, **kwargs):
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
