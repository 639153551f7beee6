"""From-scratch bidirectional GRU vs ``BiGRU`` on ``nn.GRU`` (cuDNN on a GPU), side by side.

Both compute the same function with the same weights (tests/test_bigru.py proves it);
this script times forward + backward of each in one run and prints the ratio. It writes
``results/benchmark__rnn_speed.json`` with the hardware, torch version and date.

    python benchmarks/rnn_speed.py [--batch 32 --length 50 --embed 100 --hidden 64]
"""

from __future__ import annotations

import argparse

import torch

from lamalib.analysis.timing import compare_seconds, save_benchmark
from lamalib.nn.recurrent.bigru import BiGRU
from lamalib.nn.recurrent.cells import Recurrent
from lamalib.runtime import get_device, seed_everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--length", type=int, default=50)
    parser.add_argument("--embed", type=int, default=100)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--out", default="results/benchmark__rnn_speed.json")
    args = parser.parse_args()

    if args.threads:
        torch.set_num_threads(args.threads)
    seed_everything(0)
    device = get_device()
    scratch = Recurrent("gru", args.embed, args.hidden, bidirectional=True).to(device)
    fast = BiGRU(args.embed, args.hidden).to(device)
    weights = {k: v.detach() for k, v in scratch.torch_parameters().items()}
    fast.gru.load_state_dict(weights)  # nn.GRU's names: the same function
    x = torch.randn(args.batch, args.length, args.embed, device=device)
    # Lengths from a quarter to all of T: a realistic padded batch.
    lengths = torch.randint(
        args.length // 4, args.length + 1, (args.batch,), device=device
    )
    mask = torch.arange(args.length, device=device)[None, :] < lengths[:, None]

    seconds = compare_seconds(
        {
            "from_scratch": lambda: scratch(x, mask)[0].sum().backward(),
            "nn_gru_packed": lambda: fast(x, mask).sum().backward(),
        },
        repeats=args.repeats,
    )
    ratio = seconds["from_scratch"] / seconds["nn_gru_packed"]
    print(f"forward+backward, B={args.batch} T={args.length} E={args.embed} "
          f"D={args.hidden}, on {device}:")
    print(f"from-scratch / nn.GRU time ratio: {ratio:.1f}x")

    out = save_benchmark(
        args.out,
        "rnn_speed",
        config=vars(args) | {"device": str(device)},
        metrics={"seconds": seconds, "ratio_scratch_over_nn_gru": ratio},
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
