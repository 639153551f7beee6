"""BERT's pretraining model: token + segment + position input, masked LM and
next-sentence prediction (chapter "Pretraining"; Devlin et al., 2019, section 3.1).

The input is ``[CLS] A [SEP] B [SEP]`` (``lamalib.data.nsp_batching``); each token's
vector is the sum of its token, position and segment (A = 0, B = 1) embeddings. Two
heads read the encoder: the masked LM (tied to the token embedding, as in
``MaskedLM``) at the corrupted positions (80/10/10, ``mask_tokens``), and the
next-sentence classifier on ``[CLS]`` through BERT's pooler ``tanh(W h_CLS + b)``.
The pretraining loss is the sum of both; ``nsp=False`` in the step drops the second
(RoBERTa's finding that next-sentence prediction helps little is measured in the
chapter with it).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Iterable

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.data.datasets.mlm import IGNORE_INDEX
from lamalib.models.mlm import MaskedLMStep, MLMConfig
from lamalib.nn.transformer.lm_head import TiedLMHead
from lamalib.nn.transformer.token_encoder import TokenEncoder
from lamalib.train import StepOutput
from lamalib.train.history import History
from lamalib.train.steps import smoothing


class BertPretraining(nn.Module):
    """Encoder with segment embeddings, a tied MLM head and the NSP head.

    Args:
        vocab_size: V.
        n_segments: segment ids (2: sentence A and sentence B).
        **config: any field of :class:`~lamalib.models.mlm.MLMConfig`.

    ``forward(tokens (B, T), mask (B, T), segments (B, T) or None) ->
    (mlm_logits (B, T, V), nsp_logits (B, 2))``; ``segments=None`` means all A.
    Class 1 of ``nsp_logits`` is "B follows A".
    """

    def __init__(self, vocab_size: int, n_segments: int = 2, **config) -> None:
        super().__init__()
        cfg = self.config = MLMConfig(**config)
        self.body = TokenEncoder(vocab_size, **asdict(cfg))
        self.segments = nn.Embedding(n_segments, cfg.d_model)
        nn.init.normal_(self.segments.weight, std=0.02)  # BERT's initialisation
        self.head = TiedLMHead(cfg.d_model, vocab_size)
        self.pooler = nn.Linear(cfg.d_model, cfg.d_model)
        self.nsp_head = nn.Linear(cfg.d_model, 2)

    def encode(self, tokens: torch.Tensor, mask: torch.Tensor,
               segments: torch.Tensor | None = None) -> torch.Tensor:
        """Contextual vectors ``(B, T, D)`` of token + position + segment inputs."""
        if segments is None:
            segments = torch.zeros_like(tokens)
        x = self.body.embed(tokens) + self.segments(segments)  # (B, T, D)
        return self.body.encoder(x, mask)  # (B, T, D)

    def pool(self, h: torch.Tensor) -> torch.Tensor:
        """BERT's pooler: ``tanh(W h_[CLS] + b)``, ``(B, D)``."""
        return torch.tanh(self.pooler(h[:, 0]))  # (B, D)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor,
                segments: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.encode(tokens, mask, segments)  # (B, T, D)
        mlm = self.head(h, self.body.embed.tokens.weight)  # (B, T, V)
        return mlm, self.nsp_head(self.pool(h))  # (B, T, V), (B, 2)


class BertPretrainingStep(MaskedLMStep):
    """A ``step`` for ``lamalib.train.fit`` on :class:`SegmentBatch` es: MLM loss plus
    (with ``nsp``) NSP loss. The ``StepOutput`` counts MLM tokens; :meth:`parts` and
    :func:`pretraining_metrics` give both tasks' losses and accuracies.

    Masks are drawn as in :class:`~lamalib.models.mlm.MaskedLMStep` (fresh in
    training, fixed per row in evaluation).

    Args:
        mask_id, vocab_size, special_ids, select_prob, seed, label_smoothing: as
            ``MaskedLMStep``; ``special_ids`` should hold pad, unk, [CLS] and [SEP].
        nsp: add the next-sentence loss (False: MLM only, as RoBERTa).
    """

    def __init__(self, mask_id: int, vocab_size: int, special_ids=(0, 1),
                 select_prob: float = 0.15, seed: int = 0,
                 label_smoothing: float = 0.0, nsp: bool = True) -> None:
        super().__init__(mask_id, vocab_size, special_ids, select_prob, seed,
                         label_smoothing)
        self.nsp = nsp

    def parts(self, model: nn.Module, batch) -> dict:
        """Both tasks' losses (scalar tensors), right answers and counts."""
        generator = self.generator
        if not model.training:  # the same rows always get the same masks
            generator = torch.Generator().manual_seed(
                self.seed + 7919 * int(batch.index.min()))
        inputs, labels = self.corrupt(batch.tokens, batch.mask, generator)  # (B, T)
        mlm_logits, nsp_logits = model(inputs, batch.mask, batch.segments)
        selected = labels != IGNORE_INDEX  # (B, T)
        eps = smoothing(model, self.label_smoothing)
        if selected.any():
            mlm_loss = F.cross_entropy(mlm_logits[selected].float(), labels[selected],
                                       label_smoothing=eps)
        else:  # a tiny batch may draw no position
            mlm_loss = mlm_logits.sum() * 0.0
        nsp_loss = F.cross_entropy(nsp_logits.float(), batch.labels)
        return {
            "mlm_loss": mlm_loss,
            "mlm_correct": int((mlm_logits.argmax(-1) == labels)[selected].sum()),
            "mlm_count": int(selected.sum()),
            "nsp_loss": nsp_loss,
            "nsp_correct": int((nsp_logits.argmax(-1) == batch.labels).sum()),
            "nsp_count": len(batch.labels),
        }

    def __call__(self, model: nn.Module, batch) -> StepOutput:
        p = self.parts(model, batch)
        loss = p["mlm_loss"] + p["nsp_loss"] if self.nsp else p["mlm_loss"]
        return StepOutput(loss, p["mlm_correct"], p["mlm_count"])


@torch.no_grad()
def pretraining_metrics(model: nn.Module, loader: Iterable,
                        step: BertPretrainingStep) -> dict:
    """``mlm_loss``, ``mlm_accuracy`` (per masked token), ``nsp_loss``,
    ``nsp_accuracy`` (per pair) of ``model`` over ``loader``, in evaluation mode."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    totals = dict(mlm_loss=0.0, mlm_correct=0, mlm_count=0, nsp_loss=0.0,
                  nsp_correct=0, nsp_count=0)
    for batch in loader:
        p = step.parts(model, batch.to(device))
        for task in ("mlm", "nsp"):
            n = p[f"{task}_count"]
            totals[f"{task}_loss"] += float(p[f"{task}_loss"]) * n
            totals[f"{task}_correct"] += p[f"{task}_correct"]
            totals[f"{task}_count"] += n
    model.train(was_training)
    return {f"{task}_{name}": totals[f"{task}_{key}"] / max(totals[f"{task}_count"], 1)
            for task in ("mlm", "nsp")
            for name, key in (("loss", "loss"), ("accuracy", "correct"))}


def record_pretraining_metrics(loader: Iterable, step: BertPretrainingStep,
                               prefix: str = "valid_"):
    """A ``fit`` callback that adds :func:`pretraining_metrics` over ``loader`` to
    each epoch's history record (``valid_nsp_accuracy``, ...).

    ``fit`` saves its checkpoint before the callbacks run, so a resumed run lacks
    these keys for the epoch it was saved after.
    """
    def callback(epoch: int, history: History, model: nn.Module) -> None:
        scores = pretraining_metrics(model, loader, step)
        history.records[-1].update({prefix + k: v for k, v in scores.items()})

    return callback
