"""A Transformer encoder that tags sentence gaps as topic boundaries, with attention
patterns injected into chosen heads (chapter "Finding and injecting attention
patterns"; Li et al., 2022).

The encoder reads the whole document as one token sequence (so its attention can
follow matching tokens, sentences, neighbours); each sentence is the mean of its
tokens; each gap between sentences s and s + 1 is classified from the pair.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.data.datasets.segmentation import IGNORE
from lamalib.nn.patterns import Injection, fix_heads, head_attention_mask
from lamalib.nn.transformer.token_encoder import TokenEncoder
from lamalib.train.steps import StepOutput


@dataclass
class SegmenterConfig:
    d_model: int = 64  # width D (small: the chapter trains it on a CPU)
    n_heads: int = 8  # H: 16 heads in 2 layers, enough for the 3-sigma rule
    n_layers: int = 2  # encoder layers
    d_ff: int = 128  # feed-forward width
    dropout: float = 0.1  # on attention, sublayers, embeddings and the classifier
    residual: str = "post"  # "post" or "pre"
    positional: str = "sinusoidal"  # "sinusoidal" or "learned"
    max_len: int = 512  # positions prepared
    pad_id: int = 0  # padding id


class BoundaryTagger(nn.Module):
    """Token encoder + mean per sentence + an MLP on each pair of neighbours.

    Args:
        vocab_size: V.
        plan: per layer, the :class:`Injection` s of its heads (``None`` or empty
            lists: a vanilla Transformer). Fixed heads get zero queries.
        **config: any field of :class:`SegmenterConfig`.

    ``forward(tokens (B, T), mask (B, T), spans (B, T)) -> logits (B, S - 1, 2)``;
    ``spans`` is the sentence of each token (-1 at pads).
    """

    def __init__(self, vocab_size: int,
                 plan: Sequence[Sequence[Injection]] | None = None, **config) -> None:
        super().__init__()
        cfg = self.config = SegmenterConfig(**config)
        self.body = TokenEncoder(vocab_size, **asdict(cfg))
        self.plan = [list(p) for p in plan] if plan else [[]] * cfg.n_layers
        if len(self.plan) != cfg.n_layers:
            raise ValueError(f"plan has {len(self.plan)} layers, model {cfg.n_layers}")
        for layer, injections in zip(self.body.encoder.layers, self.plan):
            fixed = [i.head for i in injections if i.how == "fixed"]
            if fixed:
                fix_heads(layer.self_attn, fixed)
        D = cfg.d_model
        self.classify = nn.Sequential(nn.Linear(2 * D, D), nn.ReLU(),
                                      nn.Dropout(cfg.dropout), nn.Linear(D, 2))

    def attention_masks(self, tokens, mask, spans) -> list[torch.Tensor]:
        """Each layer's mask: ``(B, H, T, T)`` with injections, else ``(B, T)``."""
        H, built = self.config.n_heads, {}
        for inj in map(tuple, self.plan):  # layers with the same plan share a mask
            if inj and inj not in built:
                built[inj] = head_attention_mask(inj, H, tokens, mask, spans)
        return [built[tuple(inj)] if inj else mask for inj in self.plan]

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor,
                spans: torch.Tensor) -> torch.Tensor:
        x = self.body.embed(tokens)  # (B, T, D)
        for layer, m in zip(self.body.encoder.layers,
                            self.attention_masks(tokens, mask, spans)):
            x = layer(x, m)  # (B, T, D)
        x = self.body.encoder.final_norm(x)  # (B, T, D)
        S = int(spans.max()) + 1
        member = F.one_hot(spans.clamp_min(0), S).to(x.dtype)  # (B, T, S)
        member = member * mask[..., None].to(x.dtype)  # pads belong to no sentence
        sums = member.transpose(1, 2) @ x  # (B, S, D)
        sent = sums / member.sum(1)[..., None].clamp_min(1.0)  # (B, S, D): mean
        pairs = torch.cat([sent[:, :-1], sent[:, 1:]], dim=-1)  # (B, S - 1, 2D)
        return self.classify(pairs)  # (B, S - 1, 2)


def boundary_step(model: nn.Module, batch) -> StepOutput:
    """Cross-entropy over the real gaps of a :class:`SegmentBatch`; accuracy per gap."""
    logits = model(batch.tokens, batch.mask, batch.spans)  # (B, S - 1, 2)
    labels = batch.labels[:, :logits.shape[1]]  # (B, S - 1)
    loss = F.cross_entropy(logits.float().flatten(0, 1), labels.flatten(),
                           ignore_index=IGNORE)
    real = labels != IGNORE
    correct = int(((logits.argmax(-1) == labels) & real).sum())
    return StepOutput(loss, correct, int(real.sum()))


@torch.no_grad()
def predict_gaps(model: nn.Module, batches) -> list[tuple[list[int], list[int]]]:
    """``(reference, predicted)`` gap labels of every document, in batch order."""
    model.eval()
    device = next(model.parameters()).device
    out = []
    for batch in batches:
        batch = batch.to(device)
        pred = model(batch.tokens, batch.mask, batch.spans).argmax(-1)  # (B, S - 1)
        for ref, hyp in zip(batch.labels.tolist(), pred.tolist()):
            n = sum(r != IGNORE for r in ref)
            out.append((ref[:n], hyp[:n]))
    return out
