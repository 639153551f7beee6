"""Two processes on the CPU (gloo) through torchrun, as several GPUs would run: the job
finishes, writes exactly one results file, and matches the single-process accuracy."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lamalib.train.distributed import RankShard

ROOT = Path(__file__).resolve().parents[1]


def test_rank_shards_split_each_epoch_evenly_and_follow_the_epoch():
    class Loader(list):
        epoch = 0

        def set_epoch(self, epoch):
            self.epoch = epoch

    loader = Loader(range(7))
    shards = [RankShard(loader, r, 2) for r in (0, 1)]
    assert [list(s) for s in shards] == [[0, 2, 4], [1, 3, 5]]  # 6: dropped, even
    assert len(shards[0]) == len(shards[1]) == 3
    shards[1].set_epoch(4)
    assert loader.epoch == 4


def _files(tmp_path):
    words = {0: ["dull", "boring", "awful"], 1: ["great", "warm", "lovely"]}

    def write(path, n, offset):
        rows = [f"{'pos' if i % 2 else 'neg'}\tthe film was {words[i % 2][i % 3]} "
                f"number {i + offset}" for i in range(n)]
        path.write_text("\n".join(rows) + "\n")
        return path

    return write(tmp_path / "train.tsv", 160, 0), write(tmp_path / "test.tsv", 40, 500)


def _args(train, test, results, ckpt):
    return ["run", "--model", "avg", "--train", str(train), "--test", str(test),
            "--set", "header=false", "--set", "epochs=4", "--set", "embed_dim=8",
            "--set", "lr=0.05", "--results", str(results), "--checkpoints", str(ckpt)]


@pytest.mark.skipif(not torch.distributed.is_available(), reason="no torch.distributed")
def test_two_cpu_processes_write_one_results_file(tmp_path):
    train, test = _files(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1",
           "LAMALIB_PROGRESS": "0", "LAMALIB_DEVICE": "cpu"}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone",
           "--nproc-per-node", "2", "-m", "lamalib.experiments",
           *_args(train, test, tmp_path / "multi", tmp_path / "c1")]
    done = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    files = list((tmp_path / "multi").iterdir())
    assert [f.name for f in files] == [f"run__avg__{tmp_path.name}__s0.json"]
    multi = json.loads(files[0].read_text())
    assert multi["hardware"]["processes"] == 2

    single = subprocess.run(
        [sys.executable, "-m", "lamalib.experiments",
         *_args(train, test, tmp_path / "single", tmp_path / "c2")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert single.returncode == 0, single.stderr[-3000:]
    one = json.loads((tmp_path / "single" / f"run__avg__{tmp_path.name}__s0.json").read_text())
    assert one["hardware"]["processes"] == 1
    # Each of the two processes takes half the batches, and DDP averages their
    # gradients: the same data per epoch, half the steps. On this easy task both
    # reach the same test accuracy within 0.1.
    acc_multi = multi["metrics"]["test_accuracy"]
    acc_single = one["metrics"]["test_accuracy"]
    assert acc_single >= 0.9 and abs(acc_multi - acc_single) <= 0.1, (acc_multi,
                                                                      acc_single)
