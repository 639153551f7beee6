"""Benchmark results are written like experiment results: atomically."""

import json

import pytest

from lamalib.analysis import timing
from lamalib.provenance import write_json_atomic


def test_save_benchmark_writes_hardware_and_commit(tmp_path):
    path = timing.save_benchmark(tmp_path / "benchmark__x.json", "x", {"n": 1},
                                 {"ratio": 2.0})
    record = json.loads(path.read_text())
    assert record["metrics"] == {"ratio": 2.0} and "hardware" in record
    assert [p.name for p in tmp_path.iterdir()] == ["benchmark__x.json"]


def test_an_interrupted_benchmark_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "benchmark__x.json"
    write_json_atomic(path, {"old": True})

    def crash(*args, **kwargs):
        raise KeyboardInterrupt  # the run is stopped while the file is written

    monkeypatch.setattr(json, "dump", crash)
    with pytest.raises(KeyboardInterrupt):
        timing.save_benchmark(path, "x", {}, {"ratio": 1.0})
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["benchmark__x.json"]
