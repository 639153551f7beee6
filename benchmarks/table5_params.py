"""The LAMA paper's Table 5 counted from the models at the vocabularies of its datasets
(chapter "LAMA"; ``lamalib.analysis.lama_params``).

For each dataset: the training split the project's loader returns (the split every
run trains on), its vocabulary under the paper's rule (words seen fewer than 5 times
removed, section 3.5; ``--min-freq``) built as a run builds it, and the parameters of
LAMA, LAMA+ctx and TE for m = 2 ... 64 heads under both readings of "BiGRU 512" (per
direction, or in all). Writes ``results/table5_params.json`` with the vocabulary
sizes, the counts and the ratios TE / LAMA.

The real datasets download, or are read from a local copy: point ``LAMALIB_DATA`` at
the folder that holds them (``data/README.md``).

    python benchmarks/table5_params.py [--datasets r8 imdb] [--min-freq 5]
"""

from __future__ import annotations

import argparse
import sys

from lamalib.analysis.lama_params import (BIGRU_READINGS, PAPER_HEADS, PAPER_SIZES,
                                          table5)
from lamalib.analysis.timing import save_benchmark
from lamalib.data import load_dataset
from lamalib.data.cache import cached_vocab, fingerprint
from lamalib.data.fetch import DownloadError


def vocabulary(name: str, min_freq: int) -> dict:
    """Sizes of ``name``'s training split and of its vocabulary (``<pad>`` and
    ``<unk>`` included, as the models embed them) at ``min_freq`` and at 1."""
    train = load_dataset(name, "train")
    return {"dataset": name, "train_texts": len(train),
            "train_fingerprint": fingerprint(train),
            "num_classes": len(train.label_names), "min_freq": min_freq,
            "vocab_size": len(cached_vocab(train.sentences(), min_freq=min_freq)),
            "vocab_size_min_freq_1": len(cached_vocab(train.sentences(), min_freq=1))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["r8", "imdb"])
    parser.add_argument("--min-freq", type=int, default=5,
                        help="keep words seen at least this often (paper: 5)")
    parser.add_argument("--out", default="results/table5_params.json")
    args = parser.parse_args(argv)
    if args.min_freq < 1:
        parser.error(f"--min-freq must be at least 1, got {args.min_freq}")
    try:
        vocabs = [vocabulary(name, args.min_freq) for name in args.datasets]
    except (KeyError, DownloadError) as err:  # an unknown name, no data here
        message = err.args[0] if err.args else err  # a KeyError's text, unquoted
        print(f"table5_params: {message}", file=sys.stderr)
        raise SystemExit(2) from None
    datasets = {}
    for v in vocabs:
        rows = table5(v["vocab_size"], v["num_classes"])
        datasets[v["dataset"]] = {**v, "rows": rows}
        print(f"{v['dataset']}: {v['train_texts']:,d} training texts, vocabulary "
              f"{v['vocab_size']:,d} at min count {args.min_freq} "
              f"({v['vocab_size_min_freq_1']:,d} at 1), {v['num_classes']} classes")
        for r in rows:
            print(f"  {r['reading']:13s} h={r['gru_hidden']:3d} m={r['heads']:2d}: "
                  f"LAMA {r['lama']:12,d}  TE {r['te']:12,d}  "
                  f"TE/LAMA {r['te_over_lama']:.2f}")
    out = save_benchmark(args.out, "table5_params",
                         vars(args) | {"heads": list(PAPER_HEADS),
                                       "readings": BIGRU_READINGS, **PAPER_SIZES},
                         {"datasets": datasets})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
