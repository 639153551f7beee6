"""Checking an importance ranking (lamalib.analysis.importance_check and
tools/minilm_importance.py) on a tiny random BERT: the weights' hash names the
weights (stable, changed by any change, the same after fine-tuning twice from one
seed); top-k overlaps against hand examples; the check's numbers against the library
functions they come from; the per-seed files, their resumption and their summary."""

import copy
import hashlib
import json

import pytest
import torch

from lamalib.analysis.finetuned_heads import (BertBoundaryTagger, finetune_segmenter,
                                              gap_batches)
from lamalib.analysis.head_removal import (mean_loss, removal_curve, removal_effects,
                                           spearman)
from lamalib.analysis.heads import head_importance, rank_heads, top_heads
from lamalib.analysis.importance_check import (check_importance, curve_points,
                                               state_bytes, state_sha256,
                                               summarize_check, topk_overlap)
from lamalib.models.segmenter import boundary_step
from tests.segmented_docs import WORDS, random_docs as _docs
from tests.tiny_bert import saved_tiny_bert

pytestmark = pytest.mark.usefixtures("one_thread")



@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return saved_tiny_bert(tmp_path_factory.mktemp("bert") / "tiny", WORDS)


def _load(folder):
    from lamalib.models.hf_encoder import load_encoder

    return load_encoder(folder)


def test_the_hash_names_the_weights(tiny):
    from safetensors.torch import load

    model, tok = _load(tiny)
    tagger = BertBoundaryTagger(model, tok.sep_token_id)
    sha = state_sha256(tagger)
    assert sha == state_sha256(tagger) == state_sha256(copy.deepcopy(tagger))
    assert sha == hashlib.sha256(state_bytes(tagger)).hexdigest()
    back = load(state_bytes(tagger))  # the bytes are the weights, every one
    assert set(back) == set(tagger.state_dict())
    for name, value in tagger.state_dict().items():
        assert torch.equal(back[name], value)
    w = tagger.encoder.encoder.layer[1].attention.self.query.weight
    old = w[0, 0].item()
    with torch.no_grad():
        w[0, 0] = torch.nextafter(w[0, 0], torch.tensor(1e9))  # one float step
    assert state_sha256(tagger) != sha
    with torch.no_grad():
        w[0, 0] = old
    assert state_sha256(tagger) == sha
    with torch.no_grad():
        tagger.classify.bias[1] += 1.0  # the classifier is part of the model
    assert state_sha256(tagger) != sha


def test_fine_tuning_twice_from_one_seed_gives_the_same_weights(tiny):
    docs = {"train": _docs(8, 2), "valid": _docs(4, 3), "test": _docs(4, 4)}
    hashes = []
    for seed in (0, 0, 1):
        model, tok = _load(tiny)
        tuned = finetune_segmenter(model, tok, docs, epochs=2, patience=1, lr=1e-3,
                                   batch_size=4, seed=seed)
        hashes.append(state_sha256(tuned.model))
    assert hashes[0] == hashes[1] != hashes[2]


def test_topk_overlap_against_hand_examples():
    a = [[0.9, 0.1, 0.3, 0.5], [0.2, 0.8, 0.5, 0.1]]  # top 2: (0,0) (0,3); (1,1) (1,2)
    b = [[0.1, 0.9, 0.3, 0.8], [0.3, 0.9, 0.1, 0.2]]  # top 2: (0,1) (0,3); (1,1) (1,0)
    assert topk_overlap(a, b, 2) == 2  # (0,3) and (1,1)
    assert topk_overlap(a, b, 1) == 1  # (1,1)
    assert topk_overlap(a, b, 4) == 8  # every head
    assert topk_overlap(a, a, 2) == 4
    assert topk_overlap(torch.tensor(a), torch.tensor(b).flip(1), 1) == 0  # (0,2) (1,2)
    with pytest.raises(ValueError, match="shape"):
        topk_overlap(a, [[0.1, 0.2]], 1)


def test_curve_points():
    assert curve_points(72, 6) == list(range(0, 73, 6))
    assert curve_points(5, 2) == [0, 2, 4, 5]
    assert curve_points(4, 1) == [0, 1, 2, 3, 4]
    assert curve_points(10, 4) == [0, 4, 5, 8, 10]  # half (5) and all (10) added


def _tagger(tiny):
    model, tok = _load(tiny)
    torch.manual_seed(0)
    tagger = BertBoundaryTagger(model, tok.sep_token_id).eval()
    return tagger, gap_batches(tok, _docs(6, seed=1), batch_size=3)


def test_removal_curve_at_some_points_is_the_full_curve_there(tiny):
    tagger, batches = _tagger(tiny)
    order = [(1, 0), (0, 1), (0, 0), (1, 1)]
    full = removal_curve(tagger, batches, boundary_step, order)
    assert removal_curve(tagger, batches, boundary_step, order, at=[0, 2, 4]) == \
        pytest.approx([full[0], full[2], full[4]], abs=1e-7)
    with pytest.raises(ValueError, match="0..4"):
        removal_curve(tagger, batches, boundary_step, order, at=[5])


def test_check_importance_against_the_functions_it_uses(tiny):
    tagger, batches = _tagger(tiny)
    out = check_importance(tagger, batches, boundary_step, k=1, n_random=4, seed=3,
                           step=1)
    raw = head_importance(tagger, batches, boundary_step, normalize=False)
    taylor = head_importance(tagger, batches, boundary_step)
    effects = removal_effects(tagger, batches, boundary_step)
    torch.testing.assert_close(torch.tensor(out["importance_taylor"]), taylor)
    torch.testing.assert_close(torch.tensor(out["importance_taylor_raw"]), raw)
    torch.testing.assert_close(torch.tensor(out["removal_effects"]), effects)
    assert out["spearman"] == pytest.approx(spearman(taylor, effects))
    assert out["spearman_raw"] == pytest.approx(spearman(raw, effects))
    assert out["top_heads"] == top_heads(taylor, 1)
    assert out["overlap_with_removal"] == topk_overlap(taylor, effects, 1)
    assert out["order"] == rank_heads(taylor)
    assert out["points"] == [0, 1, 2, 3, 4] and out["half"] == 2
    assert out["curve_importance"] == pytest.approx(
        removal_curve(tagger, batches, boundary_step, rank_heads(taylor)), abs=1e-7)
    assert len(out["curves_random"]) == len(out["random_orders"]) == 4
    assert len({tuple(map(tuple, o)) for o in out["random_orders"]}) > 1
    for order, curve in zip(out["random_orders"], out["curves_random"]):
        assert sorted(order) == sorted(out["order"])  # a permutation of every head
        assert curve == pytest.approx(removal_curve(tagger, batches, boundary_step,
                                                    order), abs=1e-7)
    intact = mean_loss(tagger, batches, boundary_step)
    assert out["curve_importance"][0] == pytest.approx(intact)
    assert out["at_half_importance"] == out["curve_importance"][2]
    assert out["at_half_random"] == pytest.approx(
        sum(c[2] for c in out["curves_random"]) / 4)
    json.dumps(out)  # plain values, ready for a results file
    again = check_importance(tagger, batches, boundary_step, k=1, n_random=4, seed=3)
    assert again["random_orders"] == out["random_orders"]  # the seed fixes them


EFFECTS = [[-0.5, 0.1], [0.2, -0.05]]  # |.|: 0.5 0.1 / 0.2 0.05; two lower the loss


def _record(seed, table, spearman_=0.5):
    return {"seed": seed, "sha256": f"{seed:064x}", "top_k": 1,
            "importance_taylor": table, "spearman": spearman_, "spearman_raw": 0.1,
            "importance_taylor_raw": [[2 * x for x in row] for row in table],
            "removal_effects": EFFECTS,
            "overlap_with_removal": 1, "half": 2, "at_half_importance": 0.9,
            "at_half_random": 0.7, "curve_importance": [0.5, 0.6, 0.9, 1.0, 1.2],
            "points": [0, 1, 2, 3, 4],
            "curves_random": [[0.5, 0.5, 0.6, 0.9, 1.2], [0.5, 0.7, 0.8, 1.1, 1.2]],
            "finetune": {"scores": {"F1": 0.4 + seed / 10}}}


def test_summary_of_a_folder(tmp_path):
    tables = {0: [[0.9, 0.1], [0.2, 0.8]], 1: [[0.8, 0.3], [0.9, 0.1]],
              2: [[0.1, 0.9], [0.3, 0.7]]}  # top 1: {00, 11}, {00, 10}, {01, 11}
    for s, t in tables.items():
        (tmp_path / f"seed{s}.json").write_text(json.dumps(_record(s, t, s / 10)))
    (tmp_path / "notes.json").write_text("{}")  # not a seed's file
    out = summarize_check(tmp_path)
    assert out["seeds"] == [0, 1, 2] and out["slots"] == 2
    assert out["overlap_between_seeds"] == {"0-1": 1, "0-2": 1, "1-2": 0}
    assert out["overlap_mean"] == pytest.approx(2 / 3)
    assert out["spearman"] == {0: 0.0, 1: 0.1, 2: 0.2}
    assert out["intact"] == {0: 0.5, 1: 0.5, 2: 0.5}
    # seed 0's Taylor ranks the heads 00 11 10 01, the sizes 00 10 01 11: d^2 = 0 4 1 1
    assert out["spearman_size"][0] == pytest.approx(1 - 6 * 6 / (4 * 15))
    assert out["overlap_with_removal_size"] == {0: 1, 1: 2, 2: 0}  # top 1: 00, 10
    assert out["removal_lowers_loss"] == {0: 2, 1: 2, 2: 2}
    assert out["points"] == [0, 1, 2, 3, 4]
    assert out["curve_random"][1] == pytest.approx([0.5, 0.6, 0.7, 1.0, 1.2])
    assert out["finetune_f1"][2] == pytest.approx(0.6)
    with pytest.raises(ValueError, match="no results files"):
        summarize_check(tmp_path / "nothing")


def test_the_tool_writes_one_file_per_seed_and_resumes(tiny, tmp_path, monkeypatch):
    import tools.minilm_importance as tool

    monkeypatch.setattr(tool, "segmentation_task", lambda **_: _Task())
    out, keep = tmp_path / "out", tmp_path / "keep"
    argv = ["--encoder", str(tiny), "--seeds", "0", "1", "--ft-epochs", "1",
            "--batch-size", "4", "--top-k", "1", "--random-orders", "2", "--step", "2",
            "--profile", "quick", "--keep", str(keep), "--out", str(out)]
    summary = tool.main(argv)
    assert summary["seeds"] == [0, 1]
    for s in (0, 1):
        rec = json.loads((out / f"seed{s}.json").read_text())
        blob = (keep / f"seed{s}.safetensors").read_bytes()
        assert rec["sha256"] == hashlib.sha256(blob).hexdigest()
        assert rec["seed"] == s and rec["config"]["top_k"] == 1
        assert rec["command"].endswith(f"--seeds {s}")
        assert "--keep" not in rec["command"] and str(tmp_path) not in rec["command"]
        assert rec["points"] == [0, 2, 4] and len(rec["curves_random"]) == 2
    assert summary["sha256"][0] != summary["sha256"][1]
    before = (out / "seed0.json").read_text()
    (out / "seed1.json").unlink()
    again = tool.main(argv)  # seed 0 is complete: kept as it is; seed 1 is made again
    assert (out / "seed0.json").read_text() == before
    assert again["sha256"] == summary["sha256"]  # the same seed, the same weights
    with pytest.raises(SystemExit) as e:
        tool.main([*argv[:-4], "--keep", str(keep / "seed0.safetensors"), "--out",
                   str(out)])
    assert e.value.code == 2


class _Task:
    docs = {"train": _docs(8, 2), "valid": _docs(4, 3), "test": _docs(4, 4)}
