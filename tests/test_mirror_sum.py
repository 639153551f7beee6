"""The mirror-sum task: its target against a loop over the formula, the batches and
the MSE step, the paper's model settings, and the MSE-vs-K curves."""

import pytest
import torch

from lamalib.analysis.mirror_sum import mean_baseline_mse, mirror_sum_curves
from lamalib.data.datasets.mirror_sum import (mirror_sum_batches, mirror_sum_data,
                                              mirror_sum_target)
from lamalib.models.mirror_sum import MIRROR_SUM_MODELS, MirrorSumRegressor, mse_step


@pytest.mark.parametrize("K", [1, 3, 7])
def test_target_is_the_sum_of_mirrored_products(K):
    a, y = mirror_sum_data(5, N=7, d=3, K=K, seed=1)
    assert a.shape == (5, 7, 3) and y.shape == (5, 3)
    assert 0 <= a.min() and a.max() < 1
    for n in range(5):
        want = sum(a[n, i - 1] * a[n, 7 - i] for i in range(1, K + 1))  # 1-based
        torch.testing.assert_close(y[n], want)


def test_bad_K_is_refused():
    with pytest.raises(ValueError, match="K"):
        mirror_sum_target(torch.rand(2, 5, 3), 6)


def test_batches_cover_every_sample_once_and_the_step_is_mse():
    a, y = mirror_sum_data(10, N=6, d=2, K=2)
    batches = mirror_sum_batches(a, y, batch_size=4, seed=0)
    assert [len(b.targets) for b in batches] == [4, 4, 2]
    got = torch.cat([b.targets for b in batches])
    assert sorted(got[:, 0].tolist()) == sorted(y[:, 0].tolist())
    model = MirrorSumRegressor(2, 20, "multiscale", layers=[[1] * 10])
    out = mse_step(model, batches[0])
    want = ((model(batches[0].inputs) - batches[0].targets) ** 2).mean()
    torch.testing.assert_close(out.loss, want)
    assert out.count == 4


def test_the_papers_settings():
    flex = MIRROR_SUM_MODELS["MS-Trans-Flex"]["layers"]
    assert len(flex) == 2 and all(len(h) == 10 for h in flex)
    assert sorted(set(map(str, flex[0]))) == ["3", "N/16", "N/2", "N/4", "N/8"]
    assert len(MIRROR_SUM_MODELS["MS-Trans-deepHier-S"]["layers"]) == 6
    for name, opts in MIRROR_SUM_MODELS.items():
        m = MirrorSumRegressor(4, 20, **opts)
        assert m(torch.rand(3, 16, 4)).shape == (3, 4), name


def test_the_mean_baseline_by_hand():
    train = torch.tensor([[0.0, 1.0], [2.0, 3.0]])  # mean (1, 2)
    test = torch.tensor([[1.0, 2.0], [3.0, 0.0]])  # errors (0, 0), (2, -2)
    assert mean_baseline_mse(train, test) == pytest.approx(8 / 4)


def test_curves_a_transformer_beats_the_mean_for_one_pair():
    # N = 6, d = 1, K = 1: the target is a_1 * a_6; five epochs on 1,024 samples
    lines = []
    curves = mirror_sum_curves({"Transformer": MIRROR_SUM_MODELS["Transformer"]},
                               N=6, d=1, Ks=[1], n_train=1024, n_test=256,
                               epochs=5, batch_size=32, progress=False,
                               log=lines.append)
    assert curves["Ks"] == [1] and (curves["n_train"], curves["n_test"]) == (1024, 256)
    train_y = mirror_sum_data(1024, N=6, d=1, K=1, seed=1)[1]  # (n, d), seed + 1
    test_y = mirror_sum_data(256, N=6, d=1, K=1, seed=2)[1]  # seed + 2
    assert curves["baseline"] == [pytest.approx(mean_baseline_mse(train_y, test_y))]
    row = curves["models"]["Transformer"]
    assert len(row["train_loss"]) == 1 and len(row["train_loss"][0]) == 5
    assert row["train_loss"][0][-1] < row["train_loss"][0][0]
    assert row["test_mse"][0] < 0.2 * curves["baseline"][0]
    assert row["params"] > 0 and len(lines) == 1 and "Transformer" in lines[0]
