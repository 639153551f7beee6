"""Loading, tokenising and numericalising a corpus the first time and from the cache
(``lamalib.data.cache``), in one run; prints both times and their ratio.

    LAMALIB_DATA=<folder with a copy> python benchmarks/data_cache.py --dataset imdb

It writes ``results/benchmark__data_cache__<dataset>.json`` with hardware and commit.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from lamalib.analysis.timing import save_benchmark
from lamalib.data import load_dataset
from lamalib.data.cache import cached_ids, cached_vocab


def prepare(name: str, max_len: int | None) -> tuple[float, float]:
    """Seconds to read the splits, and to build the vocabulary and the id lists."""
    start = time.perf_counter()
    splits = [load_dataset(name, s) for s in ("train", "valid", "test")]
    read = time.perf_counter() - start
    vocab = cached_vocab(splits[0], min_freq=1)
    for split in splits:
        cached_ids(split, vocab, max_len)
    return read, time.perf_counter() - start - read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="imdb")
    parser.add_argument("--max-len", type=int, default=400)
    args = parser.parse_args()
    out = f"results/benchmark__data_cache__{args.dataset}.json"
    with tempfile.TemporaryDirectory() as cache:
        os.environ["LAMALIB_CACHE"] = cache  # an empty cache: the first time
        read_1, encode_1 = prepare(args.dataset, args.max_len)
        read_2, encode_2 = prepare(args.dataset, args.max_len)
    print(f"{args.dataset}: read {read_1:.1f} s; tokenise + numericalise "
          f"{encode_1:.1f} s the first time, {encode_2:.1f} s from the cache "
          f"({encode_1 / encode_2:.0f}x faster)")
    save_benchmark(out, "data_cache", config=vars(args), metrics={
        "read_seconds": [read_1, read_2], "encode_seconds_first": encode_1,
        "encode_seconds_cached": encode_2, "ratio_first_over_cached":
            encode_1 / encode_2})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
