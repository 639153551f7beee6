"""One torch.compile cache per CPU kernel set.

Inductor keeps compiled CPU kernels in one folder per user (``$TMPDIR/torchinductor_<user>``)
whatever ``ATEN_CPU_CAPABILITY`` says, and its cache key does not include it: a kernel
compiled under ``ATEN_CPU_CAPABILITY=avx2`` (``make test``) and loaded by a process
on PyTorch's own choice (``KERNELS=native``, AVX-512 here) aborted the interpreter
("Fatal Python error: Aborted"). Before lamalib compiles anything, the cache folder is
given the capability's name, unless the user has chosen one (inductor writes its
default into the variable on first use, so that value counts as no choice)."""

import os

import torch


def separate_inductor_cache() -> str | None:
    """Point ``TORCHINDUCTOR_CACHE_DIR`` at ``<inductor's default>_<capability>``
    unless the user set it to another folder; returns the folder set, or None."""
    try:
        from torch._inductor.runtime.cache_dir_utils import default_cache_dir
    except ImportError:  # an older or newer layout: leave inductor's own choice
        return None
    default = default_cache_dir()
    if os.environ.get("TORCHINDUCTOR_CACHE_DIR", default) != default:
        return None
    folder = f"{default}_{torch.backends.cpu.get_cpu_capability().lower()}"
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = folder
    return folder


def compile_with_own_cache(fn):
    """``torch.compile(fn)`` once the cache folder is the capability's own: every
    place lamalib compiles goes through here."""
    separate_inductor_cache()
    return torch.compile(fn)
