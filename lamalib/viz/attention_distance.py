"""Where a model's heads look, drawn (chapter "Multi-scale self-attention"): the mean
argmax distance of every head and each layer's distribution of distances, from the
records of :class:`lamalib.analysis.attention_distance.AttentionDistances`."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import torch


def show_distances(trained: dict, untrained: dict | None, title: str) -> None:
    """Draw two panels for one model: (a) each head's mean argmax distance, layer by
    layer; (b) per layer, the share of attention edges at each distance (the last bin
    gathers every distance from ``max_distance`` on), with ``untrained`` (the same model
    with random weights, or None for a pretrained model) as a dashed grey line.
    ``trained`` / ``untrained``: ``AttentionDistances.record(...)`` dicts (also the
    JSON files' ``distances`` entries)."""
    hist = torch.tensor(trained["histogram"]).sum(1).float()  # (L, max_distance + 1)
    share = hist / hist.sum(1, keepdim=True)
    # untrained: the same model with random weights, or None (a pretrained model)
    heads = torch.tensor([r["per_head_mean_argmax"] for r in trained["summary"]])
    L, H = heads.shape
    chance = trained["summary"][0]["chance"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(9.5 + 0.25 * max(H - 4, 0), 3.4),
                               gridspec_kw={"width_ratios": [1 + 0.08 * H, 1.6]})
    im = a.imshow(heads.numpy(), cmap="viridis", vmin=0, vmax=max(float(heads.max()), chance))
    if H <= 6:  # the numbers fit in the cells; with more heads, the colour bar reads
        for (l, h), v in zip(torch.cartesian_prod(torch.arange(L), torch.arange(H)),
                             heads.flatten()):
            a.text(int(h), int(l), f"{v:.1f}", ha="center", va="center",
                   color="k" if v > 0.6 * im.norm.vmax else "w")
    a.set(xticks=range(H), xticklabels=range(1, H + 1), yticks=range(L),
          yticklabels=range(1, L + 1), xlabel="head", ylabel="layer",
          title="(a) mean argmax distance")
    fig.colorbar(im, ax=a, fraction=0.046, label=f"tokens (chance {chance:.1f})")
    D = trained["max_distance"]
    colours = plt.cm.viridis(torch.linspace(0, 0.9, L).tolist())
    for l in range(L):
        b.plot(range(D + 1), share[l].tolist(), "o-", ms=3, color=colours[l],
               label=f"layer {l + 1}")
    if untrained is not None:
        before = torch.tensor(untrained["histogram"]).sum((0, 1)).float()
        b.plot(range(D + 1), (before / before.sum()).tolist(), "--", color="grey",
               label="untrained (all layers)")
    b.set(xticks=range(D + 1), xticklabels=[*map(str, range(D)), f"{D}+"],
          xlabel=r"$|i - \arg\max_j \alpha_{ij}|$ (tokens)", ylabel="share of edges",
          title="(b) distance distribution per layer")
    b.set_ylim(bottom=0)
    b.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    plt.show()


def distance_table(trained: dict, untrained: dict | None) -> pd.DataFrame:
    """The summary of :func:`show_distances` as a table: one column per layer, one
    row per quantity (narrow enough for the page); the untrained rows only with
    ``untrained``."""
    before = untrained["summary"] if untrained else [None] * len(trained["summary"])
    rows = {f"layer {t['layer']}": {
        "mean argmax distance": round(t["mean_argmax"], 2),
        **({"mean argmax distance, untrained": round(u["mean_argmax"], 2)} if u else {}),
        "mean expected distance": round(t["mean_expected"], 2),
        "share at distance <= 1": round(t["share_local"], 3),
        **({"share at distance <= 1, untrained": round(u["share_local"], 3)} if u
           else {}),
        "chance distance": round(t["chance"], 2)}
        for t, u in zip(trained["summary"], before)}
    return pd.DataFrame(rows)
