"""Parameters of LAMA and of a one-layer Transformer encoder (TE) as the number of
heads grows, counted from the models themselves: the LAMA paper's Table 5 (chapter
"LAMA"; Mehta et al., section 5.1).

The paper's sizes: a BiGRU hidden dimension and a ``d_model`` of 512 "for a fair
comparison", a final hidden layer of 1024 in both classifiers, LAMA's 100-d word
vectors (section 3.5), m = 2 ... 64 heads; its counts include LAMA's GRU and
embeddings and TE's feed-forward layer and position embeddings. Two things it leaves
open, which :func:`table5_counts` takes as arguments:

* "BiGRU 512": 512 units per direction (annotations D = 1024) or 512 in all (256 per
  direction, D = 512, the width of TE's ``d_model``);
* the vocabulary: both models embed every word, so the ratio TE / LAMA depends on it.

Our choices where the paper is silent: TE's position embeddings are learned, for
``max_positions`` positions (512); TE's linear output is replaced by the same
1024-unit hidden layer as LAMA's (counted as ``Linear(d_model, 1024)`` and
``Linear(1024, C)``); LAMA's classifier reads the flattened ``(m, D)`` matrix S, as our
model does, so its first layer grows by ``D * 1024`` weights per head.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import nn

from lamalib.models import build_model

PAPER_HEADS = (2, 4, 8, 16, 32, 64)  # Table 5's m
# "BiGRU 512": the GRU width per direction under each reading
BIGRU_READINGS = {"per_direction": 512, "total": 256}
PAPER_SIZES = {"embed_dim": 100, "d_model": 512, "mlp_size": 1024, "d_ff": 2048,
               "max_positions": 512}  # d_ff = 4 d_model and max_positions: ours


def count_parameters(module: nn.Module) -> int:
    """The number of scalars in ``module``'s parameters."""
    return sum(p.numel() for p in module.parameters())


def table5_counts(vocab_size: int, num_classes: int, heads: int, gru_hidden: int,
                  embed_dim: int = 100, d_model: int = 512, mlp_size: int = 1024,
                  d_ff: int = 2048, max_positions: int = 512) -> dict:
    """Parameters of ``lama``, ``lama_ctx`` and TE with ``heads`` heads, built by the
    model registry on PyTorch's ``meta`` device (shapes only, no memory).

    Args:
        vocab_size: V, the words both models embed. num_classes: C.
        heads: m (TE's ``n_heads``: must divide ``d_model``).
        gru_hidden: h, LAMA's GRU width per direction (D = 2h).
        embed_dim: LAMA's word vectors. d_model, d_ff, max_positions: TE's sizes.
        mlp_size: the hidden layer of both classifiers.

    Returns ``{"lama", "lama_ctx", "te", "lama_attention", "te_attention",
    "te_over_lama"}``: totals, the attention layers alone, and TE / LAMA.
    """
    with torch.device("meta"):
        lama = {name: build_model(name, vocab_size=vocab_size, num_classes=num_classes,
                                  embed_dim=embed_dim, hidden_size=gru_hidden,
                                  heads=heads, mlp_size=mlp_size)
                for name in ("lama", "lama_ctx")}
        te = build_model("te", vocab_size=vocab_size, num_classes=num_classes,
                         d_model=d_model, n_heads=heads, d_ff=d_ff,
                         positional="learned", max_positions=max_positions)
        te_head = nn.Sequential(nn.Linear(d_model, mlp_size), nn.ReLU(),
                                nn.Linear(mlp_size, num_classes))  # LAMA's 1024 layer
    te_total = count_parameters(te) - count_parameters(te.out) + count_parameters(te_head)
    lama_total = count_parameters(lama["lama"])
    return {"lama": lama_total, "lama_ctx": count_parameters(lama["lama_ctx"]),
            "te": te_total,
            "lama_attention": count_parameters(lama["lama"].attention),
            "te_attention": sum(count_parameters(layer.self_attn)
                                for layer in te.body.encoder.layers),
            "te_over_lama": te_total / lama_total}


def table5(vocab_size: int, num_classes: int,
           heads: Sequence[int] = PAPER_HEADS,
           readings: dict[str, int] = BIGRU_READINGS) -> list[dict]:
    """:func:`table5_counts` at the paper's sizes for every reading of "BiGRU 512" and
    every m -> rows ``{"reading", "gru_hidden", "heads", **counts}``."""
    return [{"reading": reading, "gru_hidden": h, "heads": m,
             **table5_counts(vocab_size, num_classes, m, h, **PAPER_SIZES)}
            for reading, h in readings.items() for m in heads]
