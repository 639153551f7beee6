"""Test MSE against K on the mirror-sum task for several models (chapter "Multi-scale
self-attention"; Guo et al. 2020, section 4.1, the mirror-sum figure).

For every K, one training set and one test set are drawn
(``lamalib.data.datasets.mirror_sum.mirror_sum_data``, seeds ``seed + 1`` and
``seed + 2``); every model is built from the same seed, trained with
``lamalib.train.fit`` and ``mse_step`` (no validation set: the epoch with the lowest
training loss is kept) and scored on the test set. The reference is the MSE of always
predicting the training targets' mean: a model below it has learned something about
the products.
"""

from __future__ import annotations

import time
from typing import Callable, Mapping, Sequence

import torch

from lamalib import runtime
from lamalib.data.datasets.mirror_sum import mirror_sum_batches, mirror_sum_data
from lamalib.models.mirror_sum import MirrorSumRegressor, mse_step
from lamalib.train import TrainConfig, evaluate, fit


def mean_baseline_mse(train_targets: torch.Tensor,
                      test_targets: torch.Tensor) -> float:
    """MSE on the test targets ``(n_test, d)`` of predicting the mean of the training
    targets ``(n_train, d)``, averaged over samples and the d coordinates."""
    mean = train_targets.mean(0)  # (d,)
    return float(((test_targets - mean) ** 2).mean())


def mirror_sum_curves(models: Mapping[str, dict], N: int, d: int, Ks: Sequence[int],
                      n_train: int, n_test: int, epochs: int, d_model: int = 20,
                      lr: float = 3e-3, batch_size: int = 64, seed: int = 0,
                      progress: bool | None = None,
                      log: Callable[[str], None] | None = None) -> dict:
    """Train each model for each K and return the curves as a plain dict.

    Args:
        models: name -> ``MirrorSumRegressor`` options (e.g. ``MIRROR_SUM_MODELS``).
        N, d: sequence length and vector width. Ks: numbers of mirrored pairs.
        n_train, n_test: samples per K. epochs: training epochs (all are run).
        d_model: D of every model (divisible by its head count). lr, batch_size: Adam(W)
        settings of ``TrainConfig``. seed: weights, batch order and data.
        progress: ``fit``'s progress bars. log: called with one line per trained model.

    Returns ``{"N", "d", "Ks", "n_train", "n_test", "epochs", "d_model", "lr",
    "batch_size", "seed", "baseline": [MSE per K], "models": {name: {"test_mse": [per
    K], "train_loss": [[per epoch] per K], "seconds": [per K], "params": int}}}``.
    """
    Ks = list(Ks)
    curves = {"N": N, "d": d, "Ks": Ks, "n_train": n_train, "n_test": n_test,
              "epochs": epochs, "d_model": d_model, "lr": lr,
              "batch_size": batch_size, "seed": seed, "baseline": [],
              "models": {name: {"test_mse": [], "train_loss": [], "seconds": []}
                         for name in models}}
    config = TrainConfig(epochs=epochs, lr=lr, patience=epochs, seed=seed,
                         progress=progress)
    for K in Ks:
        train = mirror_sum_data(n_train, N, d, K, seed=seed + 1)  # (n, N, d), (n, d)
        test = mirror_sum_data(n_test, N, d, K, seed=seed + 2)
        curves["baseline"].append(mean_baseline_mse(train[1], test[1]))
        train_batches = mirror_sum_batches(*train, batch_size, seed=seed)
        test_batches = mirror_sum_batches(*test, 256)
        for name, options in models.items():
            clock = time.perf_counter()
            torch.manual_seed(runtime.seed(seed))  # the same initial weights for every K
            net = MirrorSumRegressor(d, d_model, **options)
            history = fit(net, train_batches, None, config, step=mse_step)
            mse = evaluate(net, test_batches, step=mse_step)["loss"]
            row = curves["models"][name]
            row["params"] = sum(p.numel() for p in net.parameters())
            row["test_mse"].append(mse)
            row["train_loss"].append(history.column("train_loss"))
            row["seconds"].append(time.perf_counter() - clock)
            if log is not None:
                log(f"K={K:>3} {name:20s} test MSE {mse:.4f} (mean "
                    f"{curves['baseline'][-1]:.4f}) {row['seconds'][-1]:.0f} s")
    return curves
