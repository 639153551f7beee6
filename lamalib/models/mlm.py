"""A tiny BERT-style masked language model (chapter "The Transformer").

A Transformer encoder reads the corrupted sentence and predicts, at every selected
position, the original token (``lamalib.data.datasets.mlm.mask_tokens``); the output
layer shares its weights with the input embedding, as in BERT.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

from lamalib import runtime
from lamalib.data.datasets.mlm import IGNORE_INDEX, mask_tokens
from lamalib.nn.transformer.lm_head import TiedLMHead
from lamalib.nn.transformer.token_encoder import TokenEncoder
from lamalib.train import StepOutput
from lamalib.train.steps import smoothing


@dataclass
class MLMConfig:
    d_model: int = 256  # width D (BERT-base: 768; tiny so it trains on a CPU)
    n_heads: int = 4  # H
    n_layers: int = 2  # encoder layers (BERT-base: 12)
    d_ff: int = 1024  # feed-forward width, 4 D
    dropout: float = 0.1  # everywhere, as in BERT
    residual: str = "pre"  # pre-LN trains stably without learning-rate warm-up
    positional: str = "learned"  # BERT learns its position vectors
    max_len: int = 128  # positions with a vector; longer inputs are refused
    pad_id: int = 0  # padding id


class MaskedLM(nn.Module):
    """Encoder + a tied output layer: ``logits = LayerNorm(gelu(W h)) E^T + b``.

    Args:
        vocab_size: V.
        **config: any field of :class:`MLMConfig`.
    """

    def __init__(self, vocab_size: int, **config) -> None:
        super().__init__()
        cfg = self.config = MLMConfig(**config)
        self.body = TokenEncoder(vocab_size, **asdict(cfg))
        self.head = TiedLMHead(cfg.d_model, vocab_size)  # shared with the other LMs

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor,
                selected: torch.Tensor | None = None) -> torch.Tensor:
        """Scores of every word at every position ``(B, T, V)``; with ``selected``
        ``(B, T)`` bool, only at the selected positions ``(N, V)``, N = their number
        (training predicts 15% of the tokens: the (T, V) product, a third of the
        model's compute at V = 8,000, then shrinks as much)."""
        h = self.body(tokens, mask)  # (B, T, D)
        if selected is not None:
            h = h[selected]  # (N, D)
        # Tied weights: the score of word v is the dot product with v's embedding.
        return self.head(h, self.body.embed.tokens.weight)  # (B, T, V) or (N, V)


class MaskedLMStep:
    """A ``step`` for ``lamalib.train.fit``: corrupt the batch, score the predictions.

    In training, every call draws fresh masks (dynamic masking, as in RoBERTa); in
    evaluation the masks depend only on the batch's rows, so validation scores are
    comparable between epochs.

    Args:
        mask_id, vocab_size, special_ids, select_prob: as ``mask_tokens``.
        seed: seeds the training masks and the evaluation masks.
        label_smoothing: in training only (``lamalib.train.steps.smoothing``).
    """

    def __init__(self, mask_id: int, vocab_size: int, special_ids=(0, 1),
                 select_prob: float = 0.15, seed: int = 0,
                 label_smoothing: float = 0.0) -> None:
        self.label_smoothing = label_smoothing
        self.mask_id, self.vocab_size = mask_id, vocab_size
        seed = runtime.seed(seed)  # shifted by LAMALIB_SEED
        self.special_ids, self.select_prob, self.seed = special_ids, select_prob, seed
        self.generator = torch.Generator().manual_seed(seed)

    def state_dict(self) -> dict:
        """The training masks' generator, so ``fit`` resumes with the same masks."""
        return {"generator": self.generator.get_state()}

    def load_state_dict(self, state: dict) -> None:
        self.generator.set_state(state["generator"])

    def corrupt(self, tokens: torch.Tensor, mask: torch.Tensor,
                generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """``mask_tokens`` on the CPU generator, results on the batch's device."""
        inputs, labels = mask_tokens(tokens.cpu(), mask.cpu(), self.mask_id,
                                     self.vocab_size, self.special_ids,
                                     self.select_prob, generator)
        return inputs.to(tokens.device), labels.to(tokens.device)  # (B, T), (B, T)

    def __call__(self, model: nn.Module, batch) -> StepOutput:
        generator = self.generator
        if not model.training:  # the same rows always get the same masks
            generator = torch.Generator().manual_seed(
                self.seed + 7919 * int(batch.index.min()))
        inputs, labels = self.corrupt(batch.tokens, batch.mask, generator)
        selected = labels != IGNORE_INDEX  # (B, T)
        if isinstance(getattr(model, "module", model), MaskedLM):  # DDP: .module
            logits = model(inputs, batch.mask, selected)  # (N, V): only where scored
        else:  # another model's forward (tokens, mask) scores every position
            logits = model(inputs, batch.mask)[selected]  # (N, V)
        if not selected.any():  # a tiny batch may draw no position: nothing to learn
            zero = logits.sum() * 0.0
            return StepOutput(zero, 0, 0)
        targets = labels[selected]  # (N,)
        loss = F.cross_entropy(logits.float(), targets,
                               label_smoothing=smoothing(model, self.label_smoothing))
        correct = int((logits.argmax(-1) == targets).sum())
        return StepOutput(loss, correct, int(selected.sum()))
