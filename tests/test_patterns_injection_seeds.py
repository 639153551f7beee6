"""tools/patterns_injection_seeds.py: one results file per arm and seed carrying the
recipe fixed before the runs; a file that exists is not rerun (resumable)."""

import importlib.util
import json
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "patterns_injection_seeds.py"


def load_tool():
    spec = importlib.util.spec_from_file_location("patterns_injection_seeds", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runs_write_the_recipe_and_are_not_repeated(tmp_path, monkeypatch):
    tool = load_tool()
    monkeypatch.setattr(tool, "OUT", tmp_path)
    monkeypatch.setitem(tool.RECIPES, "A", dict(train=24, valid=8, test=8, epochs=1))
    tool.main(["baselines"])
    tool.main(["main", "--seeds", "0", "--arms", "vanilla", "positional alone"])
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["baselines.json", "main__positional_alone__s0.json",
                     "main__vanilla__s0.json"]
    rec = json.loads((tmp_path / "main__positional_alone__s0.json").read_text())
    assert rec["recipe"] == tool.RECIPE and rec["patterns"] == ["previous", "next"]
    assert rec["setting"] == "previous + next (2/8 heads)"
    assert 0 <= rec["metrics"]["F1"] <= 1 and rec["metrics"]["epochs"] == 1
    base = json.loads((tmp_path / "baselines.json").read_text())["baselines"]
    assert base["no boundary"]["F1"] == 0.0
    stamp = (tmp_path / "main__vanilla__s0.json").stat().st_mtime_ns
    tool.main(["main", "--seeds", "0", "--arms", "vanilla"])  # exists: not rerun
    assert (tmp_path / "main__vanilla__s0.json").stat().st_mtime_ns == stamp
