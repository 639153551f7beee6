"""The comparison's bookkeeping (lamalib.analysis.pattern_ablation): plans put each
pattern on its own heads in every layer, the ablation has each pattern alone, every
pair and all, rho of a plan is the closed form, and the summary is mean and sample
standard deviation over seeds."""

import statistics
from types import SimpleNamespace

import pytest
import torch

from lamalib.analysis.pattern_ablation import (HOW, PAPER_PATTERNS, Setting,
                                               ablation_settings, combinations,
                                               model_sparsity, plan_for, summarize)
from lamalib.models.segmenter import BoundaryTagger
from lamalib.nn.patterns import bind_pattern


def test_plan_puts_each_pattern_on_its_own_heads_in_every_layer():
    plan = plan_for(["same_span", "previous"], n_layers=3, n_heads=8,
                    heads_per_pattern=2)
    assert len(plan) == 3 and all(layer == plan[0] for layer in plan)
    assert [(i.head, i.pattern, i.how) for i in plan[0]] == [
        (0, "same_span", "masked"), (1, "same_span", "masked"),
        (2, "previous", "fixed"), (3, "previous", "fixed")]
    assert HOW["next"] == "fixed" and HOW["matching"] == "masked"  # as Li et al.
    with pytest.raises(ValueError, match="only 8"):
        plan_for(PAPER_PATTERNS, n_heads=8, heads_per_pattern=3)


def test_plan_binds_the_unknown_id_into_matching_only():
    plan = plan_for(["matching", "same_span"], n_layers=2, never_match=(1,))
    assert [(i.head, i.pattern, i.how) for i in plan[0]] == [
        (0, bind_pattern("matching", never=(1,)), "masked"),
        (1, "same_span", "masked")]
    assert plan_for(["matching"])[0][0].pattern == "matching"  # the old default
    # a tagger with it: an <unk> query may look at every key (its row is free)
    model = BoundaryTagger(50, plan, n_layers=2, n_heads=8, d_model=16, d_ff=16)
    tokens = torch.tensor([[5, 1, 6, 1, 5]])  # two unknown words
    masks = model.attention_masks(tokens, torch.ones(1, 5, dtype=torch.bool),
                                  torch.zeros(1, 5, dtype=torch.long))
    assert masks[0][0, 0, 1].all() and masks[0][0, 0, 0].tolist() == [1, 0, 0, 0, 1]


def test_ablation_has_every_single_pattern_every_pair_and_all():
    combos = combinations(PAPER_PATTERNS)
    assert len(combos) == 4 + 6 + 1
    assert len(set(map(frozenset, combos))) == len(combos)
    names = [s.name for s in ablation_settings(PAPER_PATTERNS, budgets=(1, 2))]
    assert names[0] == "vanilla" and len(names) == 1 + 4 + 6 + 2
    assert names[-2:] == ["matching + same_span + previous + next (4/8 heads)",
                          "matching + same_span + previous + next (8/8 heads)"]


def test_model_sparsity_is_the_closed_form():
    # one "previous" head of 8 in both layers, one document of N real tokens:
    # 7 free heads (N^2 cells) + N cells (N - 1 neighbours, the free first row N)
    N = 12
    model = BoundaryTagger(50, plan_for(["previous"]), n_layers=2, n_heads=8,
                           d_model=16, d_ff=16)
    batch = SimpleNamespace(tokens=torch.arange(1, N + 1)[None],
                            mask=torch.ones(1, N, dtype=torch.bool),
                            spans=torch.zeros(1, N, dtype=torch.long))
    rho = model_sparsity(model, [batch])
    assert rho == pytest.approx(1 - (7 * N * N + (N - 1) + N) / (8 * N * N))
    vanilla = BoundaryTagger(50, None, n_layers=2, n_heads=8, d_model=16, d_ff=16)
    assert model_sparsity(vanilla, [batch]) == 0.0


def test_summary_is_mean_and_sample_sd_per_setting_in_order():
    rows = [{"setting": s, "heads": h, "seed": k, "F1": f, "Pk": p, "rho": r,
             "seconds": 1.0, "cpu_seconds": 2.0}
            for s, h, k, f, p, r in [("vanilla", 0, 0, 0.4, 0.3, 0.0),
                                     ("a (1/8 heads)", 1, 0, 0.5, 0.2, 0.1),
                                     ("vanilla", 0, 1, 0.6, 0.1, 0.0),
                                     ("a (1/8 heads)", 1, 1, 0.7, 0.4, 0.1),
                                     ("vanilla", 0, 2, 0.8, 0.2, 0.0)]]
    out = summarize(rows)
    assert [o["setting"] for o in out] == ["vanilla", "a (1/8 heads)"]
    assert out[0]["runs"] == 3 and out[0]["F1"] == pytest.approx(0.6)
    assert out[0]["F1_sd"] == pytest.approx(statistics.stdev([0.4, 0.6, 0.8]))
    assert out[1]["Pk"] == pytest.approx(0.3) and out[1]["heads"] == 1
    assert Setting().name == "vanilla"


def test_patience_stops_a_run_early_and_reports_its_epochs():
    from lamalib.analysis.pattern_ablation import segmentation_task, train_and_score

    task = segmentation_task(train=12, valid=6, test=6, epochs=40, d_model=8, d_ff=8)
    task.patience = 1
    _, scores = train_and_score(task, seed=0)
    # one epoch without a better validation score stops it, long before the cap
    assert scores["epochs"] == scores["best_epoch"] + 1 < 40


def test_seeds_for_power_matches_the_normal_approximation_and_grows_with_spread():
    from lamalib.analysis.pattern_ablation import seeds_for_power

    # normal approximation: n = ((1.96 + 0.84) sd / effect)^2 = 78.4 at sd = effect * 3.16
    n = seeds_for_power(sd=10.0, effect=3.16)
    assert 78 <= n <= 83  # t's heavier tails add a seed or two
    assert seeds_for_power(1.0, 3.0) == 5  # the floor
    assert seeds_for_power(2.0, 3.0) == 6  # (2.78 + 0.94) * 2 / sqrt(5) = 3.3 > 3
    assert seeds_for_power(20.0, 3.0) > seeds_for_power(10.0, 3.0)
    assert seeds_for_power(100.0, 0.1) is None


def test_trivial_baselines_score_by_hand():
    from types import SimpleNamespace

    from lamalib.analysis.pattern_ablation import trivial_baselines

    doc = SimpleNamespace(gaps=[0, 1, 0, 0, 1])  # 6 sentences, 2 boundaries of 5 gaps
    task = SimpleNamespace(docs={"test": [doc], "train": [doc]})
    got = trivial_baselines(task, draws=50)
    assert got["no boundary"]["F1"] == 0.0
    assert got["every gap a boundary"]["F1"] == pytest.approx(2 * 0.4 / 1.4)
    # every second gap: [0, 1, 0, 1, 0]: one of two right, one of two found
    assert got["every second gap"]["F1"] == pytest.approx(0.5)
    assert "random at the training rate (0.40)" in got
