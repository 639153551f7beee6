"""The patterns pipeline as Li et al. (2022) ran it: a pretrained BERT fine-tuned for
the task, head importance on the task's loss, then the patterns of the important
heads (chapter "Finding and injecting attention patterns", section "Patterns in a
fine-tuned encoder").

* :func:`gap_batches`: the chapter's segmentation documents as a BERT reads them,
  ``[CLS] s_1 [SEP] s_2 [SEP] ... s_S [SEP]``; the ``[SEP]`` closing sentence s
  stands for the gap after it, and ``spans`` give each piece its sentence.
* :class:`BertBoundaryTagger`: the encoder and a linear boundary classifier on those
  ``[SEP]`` states; it takes and returns what the chapter's ``BoundaryTagger`` does,
  so ``boundary_step``, ``predict_gaps`` and ``lamalib.train.fit`` serve it.
* :func:`finetune_segmenter`: fine-tune it to early stopping, score the test split.
* :func:`task_importance`: eqs. (7)-(8) for the task loss (cross-entropy over the
  gaps) on held-out documents.
* :func:`finetuned_patterns`: GR of every pattern in every head (matching piece,
  same sentence, previous, next, ``[CLS]``, ``[SEP]``), the 3-sigma rule, and which
  kept heads are among the most important ones (:func:`important_findings`).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Sequence

import torch
from torch import nn

from lamalib import runtime
from lamalib.analysis.heads import head_importance, top_heads
from lamalib.analysis.pattern_ablation import HOW
from lamalib.analysis.pretrained_heads import Finding, findings, uniform_reference
from lamalib.analysis.segmentation import boundary_f1, pk
from lamalib.data.datasets.segmentation import IGNORE, SegmentBatch, SegmentedDoc
from lamalib.models.hf_encoder import hf_attentions
from lamalib.models.segmenter import boundary_step, predict_gaps
from lamalib.nn.patterns import bind_pattern, global_relevance, ratio_interval
from lamalib.train import TrainConfig, fit

# What the fine-tuned heads are measured against: the paper's four (section 4.2.2)
# and the two separators Clark et al. (2019) found heads parking on.
FINETUNED_PATTERNS = ("matching", "same_span", "previous", "next", "[CLS]", "[SEP]")


def doc_pieces(tokenizer, doc: SegmentedDoc,
               max_pieces: int | None = None) -> tuple[list[int], list[int]]:
    """One document's ids ``[CLS] s_1 [SEP] ... s_S [SEP]`` and each id's sentence
    (``[CLS]`` in sentence 0, each ``[SEP]`` in the sentence it closes); a sentence
    is cut to ``max_pieces`` WordPieces."""
    ids, spans = [tokenizer.cls_token_id], [0]
    for s, words in enumerate(doc.sentences):
        pieces = tokenizer(" ".join(words), add_special_tokens=False)["input_ids"]
        pieces = pieces[:max_pieces] + [tokenizer.sep_token_id]
        ids += pieces
        spans += [s] * len(pieces)
    return ids, spans


def gap_batches(tokenizer, docs: Sequence[SegmentedDoc], batch_size: int = 16,
                max_pieces: int | None = None) -> list[SegmentBatch]:
    """``docs`` as padded :class:`SegmentBatch` es of the encoder's ids: ``tokens``
    and ``spans (B, T)`` (spans -1 at pads), ``mask (B, T)``, ``labels (B, S - 1)``
    (the gaps, ``IGNORE`` beyond a document), ``index`` the documents' numbers."""
    out = []
    for start in range(0, len(docs), batch_size):
        chunk = docs[start:start + batch_size]
        rows = [doc_pieces(tokenizer, d, max_pieces) for d in chunk]
        T = max(len(ids) for ids, _ in rows)
        B = len(chunk)
        tokens = torch.full((B, T), tokenizer.pad_token_id, dtype=torch.long)
        spans = torch.full((B, T), -1, dtype=torch.long)
        width = max(max(len(d.gaps) for d in chunk), 1)
        labels = torch.full((B, width), IGNORE, dtype=torch.long)  # (B, S - 1)
        for b, ((ids, sp), d) in enumerate(zip(rows, chunk)):
            tokens[b, :len(ids)] = torch.tensor(ids)
            spans[b, :len(sp)] = torch.tensor(sp)
            labels[b, :len(d.gaps)] = torch.tensor(d.gaps, dtype=torch.long)
        out.append(SegmentBatch(tokens, tokens != tokenizer.pad_token_id, spans,
                                labels, torch.arange(start, start + B)))
    return out


class BertBoundaryTagger(nn.Module):
    """A Hugging Face encoder and a linear classifier (boundary or not) on the state
    of the ``[SEP]`` that closes each sentence but the last.

    Args:
        encoder: a ``transformers`` BERT (``load_encoder(...).model``), fine-tuned
            whole.
        sep_id: the tokenizer's ``[SEP]`` id.
        dropout: on the ``[SEP]`` states before the classifier (BERT's 0.1).
    """

    def __init__(self, encoder: nn.Module, sep_id: int, dropout: float = 0.1):
        super().__init__()
        self.encoder, self.sep_id = encoder, int(sep_id)
        width = encoder.config.hidden_size
        self.dropout = nn.Dropout(dropout)
        self.classify = nn.Linear(width, 2)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor,
                spans: torch.Tensor | None = None) -> torch.Tensor:
        """``tokens``, ``mask (B, T)`` -> gap logits ``(B, S - 1, 2)`` (S: the most
        sentences in the batch; rows of a shorter document are ignored by the
        labels)."""
        h = self.encoder(input_ids=tokens, attention_mask=mask.long()
                         ).last_hidden_state  # (B, T, D)
        B, T = tokens.shape
        sep = (tokens == self.sep_id) & mask  # (B, T)
        where = torch.where(sep, torch.arange(T, device=tokens.device), T)  # (B, T)
        first = where.sort(dim=-1).values  # (B, T): [SEP] positions first, then T
        gaps = max(int(sep.sum(-1).max()) - 1, 1)
        pos = first[:, :gaps].clamp_max(T - 1)  # (B, S - 1): the closing [SEP]s
        states = h.gather(1, pos[..., None].expand(-1, -1, h.shape[-1]))  # (B, S-1, D)
        return self.classify(self.dropout(states))  # (B, S - 1, 2)


@dataclass
class FineTuned:
    """A fine-tuned tagger, its test scores and the run's record."""

    model: BertBoundaryTagger
    scores: dict
    history: list


def finetune_segmenter(encoder: nn.Module, tokenizer, docs: dict, epochs: int = 8,
                       patience: int = 2, lr: float = 5e-5, batch_size: int = 16,
                       seed: int = 0, max_pieces: int | None = None) -> FineTuned:
    """Fine-tune ``encoder`` (all its weights) and a boundary classifier on
    ``docs["train"]`` to early stopping on ``docs["valid"]`` (gap accuracy, the
    chapter's rule), and score the kept weights on ``docs["test"]``.

    Returns :class:`FineTuned`; ``scores``: boundary ``F1``, ``Pk``, ``seconds``,
    ``cpu_seconds``, ``epochs``, ``best_epoch``, ``steps`` (updates made).
    """
    runtime.seed_everything(seed)
    model = BertBoundaryTagger(encoder, tokenizer.sep_token_id)
    train = gap_batches(tokenizer, docs["train"], batch_size, max_pieces)
    valid = gap_batches(tokenizer, docs["valid"], batch_size, max_pieces)
    start, cpu = time.perf_counter(), time.process_time()
    history = fit(model, _Shuffled(train, seed), valid,
                  TrainConfig(epochs=epochs, lr=lr, seed=seed, patience=patience,
                              weight_decay=0.01, progress=False),
                  step=boundary_step)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    pairs = predict_gaps(model, gap_batches(tokenizer, docs["test"], batch_size,
                                            max_pieces))
    ref = [g for r, _ in pairs for g in r]
    hyp = [g for _, h in pairs for g in h]
    scores = {"F1": boundary_f1(ref, hyp)["f1"],
              "Pk": statistics.fmean(pk(r, h) for r, h in pairs),
              "seconds": seconds, "cpu_seconds": cpu_seconds,
              "epochs": len(history), "best_epoch": history.best_epoch,
              "steps": len(history) * len(train)}
    return FineTuned(model.eval(), scores, list(history.records))


class _Shuffled:
    """Fixed batches in a new order each epoch (``fit`` calls ``set_epoch``)."""

    def __init__(self, batches: list, seed: int):
        self.batches, self.seed, self.epoch = batches, seed, 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return len(self.batches)

    def __iter__(self):
        g = torch.Generator().manual_seed(runtime.seed(self.seed) * 1000 + self.epoch)
        return iter([self.batches[i] for i in torch.randperm(len(self.batches),
                                                             generator=g)])


def task_importance(model: BertBoundaryTagger, batches, method: str = "taylor"
                    ) -> torch.Tensor:
    """Head importance of the encoder for the task loss (the cross-entropy over
    the gaps, ``boundary_step``), eqs. (7)-(8) -> ``(L, H)``, L2-normalised per
    layer; evaluation mode, so it is the same on every run."""
    return head_importance(model, batches, boundary_step, method=method)


def finetuned_pattern_set(tokenizer) -> dict:
    """The predicates of :data:`FINETUNED_PATTERNS` for a Hugging Face tokenizer:
    ``matching`` never matches a special piece (``[CLS]``, ``[SEP]``, ``[UNK]``:
    the separators have patterns of their own, and ``[UNK]`` stands for many
    pieces)."""
    specials = (tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.unk_token_id)
    return {"matching": bind_pattern("matching", never=specials),
            "same_span": "same_span", "previous": "previous", "next": "next",
            "[CLS]": bind_pattern("special", ids=(tokenizer.cls_token_id,)),
            "[SEP]": bind_pattern("special", ids=(tokenizer.sep_token_id,))}


def residual_pattern_set(tokenizer) -> dict:
    """What ``same_span`` and ``matching`` claim beyond simpler patterns they overlap:
    ``same_span_far`` (the same sentence, more than one piece away: a previous-piece
    head scores high on ``same_span`` but not here) and ``matching_other`` (another
    occurrence of the piece, not the piece itself)."""
    specials = (tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.unk_token_id)
    return {"same_span_far": "same_span_far",
            "matching_other": bind_pattern("matching_other", never=specials)}


def head_profiles(per_doc: dict, uniform: dict, heads: Sequence[tuple[int, int]],
                  draws: int = 2000, seed: int = 0) -> list[dict]:
    """For each head, the pattern on which it puts the most attention relative to
    uniform attention (GR / uniform GR, eq. (1)), with that ratio's bootstrap interval
    over documents (:func:`lamalib.nn.patterns.ratio_interval`).

    ``per_doc``: ``{pattern: (D, L, H)}`` and ``uniform``: ``{pattern: (D,)}`` from
    :func:`lamalib.nn.patterns.document_relevance`. Returns one dict per head:
    ``head``, ``pattern``, ``ratio``, ``low``, ``high``, ``gr`` and every pattern's
    ratio (``ratios``).
    """
    out = []
    for l, h in heads:
        ratios = {n: float(per_doc[n][:, l, h].mean() / uniform[n].mean())
                  for n in per_doc}
        best = max(ratios, key=ratios.get)
        ratio, lo, hi = ratio_interval(per_doc[best][:, l, h], uniform[best], draws,
                                       seed=seed)
        out.append({"head": (l, h), "pattern": best, "ratio": ratio, "low": lo,
                    "high": hi, "gr": float(per_doc[best][:, l, h].mean()),
                    "ratios": ratios})
    return out


def encoder_of(model: nn.Module) -> nn.Module:
    """The Hugging Face encoder inside a :class:`BertBoundaryTagger`, or ``model``."""
    return getattr(model, "encoder", model) if isinstance(model, BertBoundaryTagger) \
        else model


def pattern_relevance(model: nn.Module, tokenizer, batches) -> tuple[dict, dict]:
    """GR (eq. (1)) of every pattern of :func:`finetuned_pattern_set` in every head
    of ``model`` (a tagger or a bare encoder) over ``batches`` -> ``({name: (L, H)},
    {name: GR of uniform attention})``."""
    encoder = encoder_of(model)
    patterns = finetuned_pattern_set(tokenizer)
    with torch.no_grad():
        grs = global_relevance(encoder, batches, patterns, attention=lambda m, b:
                               hf_attentions(m, b.tokens, b.mask))
    return grs, uniform_reference(batches, patterns)


@dataclass(frozen=True)
class ImportantPattern:
    """A pattern's 3-sigma heads among the ``k`` most important of their layer."""

    pattern: str
    heads: tuple[tuple[int, int], ...]  # kept and important, (layer, head)
    kept: tuple[tuple[int, int], ...]  # kept by the 3-sigma rule anywhere


def important_findings(found: Sequence[Finding], importance: torch.Tensor,
                       k: int = 3) -> list[ImportantPattern]:
    """For each finding, its 3-sigma heads that are among the ``k`` most important
    heads of their layer (Li et al. look at k = 3, section 4.2.2)."""
    top = set(top_heads(importance, k))
    return [ImportantPattern(f.pattern, tuple(h for h in f.significant if h in top),
                             f.significant) for f in found]


def injectable_found(important: Sequence[ImportantPattern],
                     found: Sequence[Finding],
                     injectable: Sequence[str] = tuple(HOW)) -> tuple[list[str], str]:
    """The patterns to inject into the chapter's tagger, and why: those with a
    3-sigma head among the important heads (``"kept, important"``); else those kept
    anywhere (``"kept"``); else the one whose best head lies furthest above uniform
    attention (``"highest GR"``, a fallback, not a finding)."""
    can = [p for p in injectable]
    imp = [i.pattern for i in important if i.pattern in can and i.heads]
    if imp:
        return imp, "kept, important"
    kept = [f.pattern for f in found if f.pattern in can and f.kept]
    if kept:
        return kept, "kept"
    mine = [f for f in found if f.pattern in can]
    return [max(mine, key=lambda f: f.excess).pattern], "highest GR"


def finetuned_patterns(model: nn.Module, tokenizer, batches, k: int = 3,
                       n_sigma: float = 3.0, importance: torch.Tensor | None = None
                       ) -> dict:
    """The pipeline's steps 1-3 on held-out ``batches`` (:func:`gap_batches`).

    Returns ``{"importance": (L, H) task-loss Taylor importance (or the one given),
    "gr": {name: (L, H)}, "uniform": {name: float}, "findings": [Finding],
    "important": [ImportantPattern], "top": [(layer, head)] the k most important of
    each layer}``. A bare encoder (no task head) takes ``importance`` from outside.
    """
    if importance is None:
        importance = task_importance(model, batches)
    grs, uniform = pattern_relevance(model, tokenizer, batches)
    found = findings(grs, uniform, n_sigma)
    return {"importance": importance, "gr": grs, "uniform": uniform,
            "findings": found, "important": important_findings(found, importance, k),
            "top": top_heads(importance, k)}


__all__ = ["BertBoundaryTagger", "FINETUNED_PATTERNS", "FineTuned", "ImportantPattern",
           "doc_pieces", "encoder_of", "finetune_segmenter", "finetuned_pattern_set",
           "finetuned_patterns", "gap_batches", "head_profiles", "important_findings",
           "injectable_found", "pattern_relevance", "residual_pattern_set",
           "task_importance"]
