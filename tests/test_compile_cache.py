"""A kernel compiled under ATEN_CPU_CAPABILITY=avx2 and then loaded by a process on
PyTorch's own kernels aborted the interpreter: both read one inductor cache. lamalib
keeps one cache per capability (lamalib.nn.compile_cache). Checked here in two fresh
processes that share a temporary folder, as `make test` and `make notebooks
KERNELS=native` share /tmp."""

import os
import subprocess
import sys

import torch

from lamalib.nn.compile_cache import separate_inductor_cache

RUN = """
import warnings, torch
from torch._inductor.runtime.cache_dir_utils import cache_dir
cache_dir()  # inductor's first use by something else writes its default into the variable
from lamalib.nn.multiscale.msmsa import scale_aware_attention
torch.manual_seed(0)
q, k, v = (torch.randn(2, 2, 24, 8) for _ in range(3))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    got, _ = scale_aware_attention(q, k, v, torch.tensor([3, 3]), kernel="compiled", block=8)
want, _ = scale_aware_attention(q, k, v, torch.tensor([3, 3]), kernel="neighbour", block=8)
torch.testing.assert_close(got, want)
import os; print(os.environ["TORCHINDUCTOR_CACHE_DIR"])
"""


def test_the_cache_folder_is_named_by_the_kernels_and_a_users_choice_is_kept(monkeypatch):
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    folder = separate_inductor_cache()
    assert folder.endswith("_" + torch.backends.cpu.get_cpu_capability().lower())
    assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == folder
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", default_cache_dir())  # inductor's own
    assert separate_inductor_cache() == folder
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "mine")
    assert separate_inductor_cache() is None and os.environ["TORCHINDUCTOR_CACHE_DIR"] == "mine"


def test_a_kernel_compiled_under_avx2_does_not_break_a_native_process(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("ATEN_CPU_CAPABILITY", "TORCHINDUCTOR_CACHE_DIR")}
    env["TMPDIR"] = str(tmp_path)
    folders = []
    for kernels in ({"ATEN_CPU_CAPABILITY": "avx2"}, {}):
        done = subprocess.run([sys.executable, "-c", RUN], env={**env, **kernels},
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (kernels, done.stderr[-1500:])
        folders.append(done.stdout.strip().splitlines()[-1])
    assert all(f.startswith(str(tmp_path)) for f in folders)
    # each process compiled into its own kernels' folder (one folder where native is
    # avx2); native is asked of a fresh process, as this one may run under `make test`'s avx2
    native = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
        env=env, capture_output=True, text=True, timeout=120).stdout.strip()
    assert folders[0].endswith("_avx2") and folders[1].endswith("_" + native.lower()), folders
    assert (folders[0] != folders[1]) == (native != "AVX2"), folders
