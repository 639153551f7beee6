"""The patterns pipeline on the course's pretrained encoder (chapter "Finding and
injecting attention patterns": the contrast to the fine-tuned MiniLM of
``lamalib.analysis.finetuned_heads``; Li et al., 2022, on BERT's heads).

* :func:`document_batches`: held-out texts as the encoder reads them, one document a
  row, ``[CLS] pieces [SEP]`` cut to its ``max_len``; batches carry ``index`` so the
  masked-LM step draws the same masks on every run.
* :func:`encoder_patterns`: the patterns an encoder's heads are measured against:
  previous and next token, matching token (``[UNK]`` matches nothing) and the special
  tokens ``[CLS]``/``[SEP]`` (Clark et al., 2019).
* :func:`mlm_importance`: head importance (eqs. (7)-(8)) for the masked-LM loss.
* :func:`encoder_relevance`, :func:`uniform_reference`: GR of every head (eq. (1))
  and of uniform attention, per pattern.
* :func:`findings`, :func:`patterns_to_inject`: the best head of each pattern, the
  3-sigma rule's heads, and what to inject into a smaller model.
* :func:`hf_head_findings`: the same measure on a real pretrained Hugging Face encoder
  (``lamalib.models.hf_encoder``, e.g. all-MiniLM-L6-v2): the fraction of each head's
  attention on the previous and next token, on ``[CLS]`` and on ``[SEP]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import torch

from lamalib.analysis.heads import head_importance
from lamalib.analysis.pattern_ablation import HOW
from lamalib.data.batching import Batch
from lamalib.data.segments import segment_batch
from lamalib.data.subword import SubwordTokenizer
from lamalib.models.mlm import MaskedLM, MaskedLMStep
from lamalib.models.pretrained import encoder_ids
from lamalib.models.hf_encoder import hf_attentions
from lamalib.nn.patterns import (bind_pattern, global_relevance, named_patterns,
                                 pattern_cells, significant_heads, uniform_relevance,
                                 z_ceiling)


def document_batches(tokenizer: SubwordTokenizer, texts: Sequence[str], max_len: int,
                     batch_size: int = 16) -> list[Batch]:
    """One row per non-empty text, ``[CLS] pieces [SEP]`` cut to ``max_len`` ids,
    padded; ``index`` numbers the rows (``MaskedLMStep`` seeds its evaluation masks
    with it). Returns batches of ``tokens (B, T)``, ``mask (B, T)``."""
    rows = [encoder_ids(tokenizer, t, max_len) for t in texts if t.strip()]
    return _padded_batches(rows, tokenizer.pad_id, batch_size)


def _padded_batches(rows: list[list[int]], pad_id: int,
                    batch_size: int) -> list[Batch]:
    if not rows:
        raise ValueError("document_batches needs at least one non-empty text")
    width = max(map(len, rows))
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)  # (N, T)
    for r, row in enumerate(rows):
        ids[r, :len(row)] = torch.tensor(row)
    return [segment_batch(ids, torch.arange(i, min(i + batch_size, len(rows))),
                          pad_id) for i in range(0, len(rows), batch_size)]


def encoder_patterns(tokenizer: SubwordTokenizer) -> list:
    """``previous``, ``next``, ``matching`` (``[UNK]`` never matches: it stands for
    many pieces) and ``special`` (the key is ``[CLS]`` or ``[SEP]``)."""
    return ["previous", "next", bind_pattern("matching", never=(tokenizer.unk_id,)),
            bind_pattern("special", ids=(tokenizer.cls_id, tokenizer.sep_id))]


def mlm_importance(model: MaskedLM, tokenizer: SubwordTokenizer,
                   batches: Iterable[Batch], method: str = "taylor",
                   seed: int = 0) -> torch.Tensor:
    """Head importance for the masked-LM loss -> ``(L, H)``, L2-normalised per layer.

    The loss is the pretraining one (15% of the pieces selected, 80/10/10); in
    evaluation mode ``MaskedLMStep`` draws each batch's masks from ``seed`` and the
    batch's rows, so the scores are the same on every run.
    """
    step = MaskedLMStep(tokenizer.mask_id, len(tokenizer), tokenizer.special_ids,
                        seed=seed)
    return head_importance(model, batches, step, method=method)


def encoder_relevance(model: MaskedLM, batches: Iterable[Batch],
                      patterns: Sequence) -> dict[str, torch.Tensor]:
    """GR of every head for each pattern, eq. (1) -> ``{name: (L, H)}``; runs only
    the encoder body (the output layer's scores are not needed)."""
    return global_relevance(model, batches, patterns,
                            forward=lambda m, b: m.body(b.tokens, b.mask))


def uniform_reference(batches: Iterable[Batch],
                      patterns: Sequence | dict) -> dict[str, float]:
    """GR of uniform attention per pattern, the mean over documents of
    ``sum_ij 1_P / |x|^2`` (:func:`~lamalib.nn.patterns.uniform_relevance`); a
    batch's ``spans``, where it has them, serve the span patterns."""
    named = named_patterns(patterns)
    sums, docs = {name: 0.0 for name, _ in named}, 0
    for b in batches:
        for name, p in named:
            cells = pattern_cells(p, b.tokens, b.mask,
                                  getattr(b, "spans", None))  # (B, T, T)
            sums[name] += float(uniform_relevance(cells, b.mask).sum())
        docs += b.tokens.shape[0]
    return {name: s / docs for name, s in sums.items()}


@dataclass(frozen=True)
class Finding:
    """What the GRs say about one pattern: its best head ``(layer, head)`` and GR,
    uniform attention's GR, how many standard deviations (over all heads) the best
    head lies above the mean, the heads the 3-sigma rule keeps, and how many heads
    there are (``heads``: ``z`` can be at most :func:`z_ceiling` of it)."""

    pattern: str
    best: tuple[int, int]
    gr: float
    uniform: float
    z: float
    significant: tuple[tuple[int, int], ...]
    heads: int = 0

    @property
    def z_ceiling(self) -> float:
        """The largest ``z`` any head can reach among ``heads`` (sqrt(heads - 1)):
        compare ``z`` with it, not across models with other head counts."""
        return z_ceiling(self.heads)

    @property
    def kept(self) -> bool:
        return bool(self.significant)

    @property
    def excess(self) -> float:
        """The best head's GR above uniform attention's."""
        return self.gr - self.uniform


def findings(grs: dict[str, torch.Tensor], uniform: dict[str, float],
             n_sigma: float = 3.0) -> list[Finding]:
    """One :class:`Finding` per pattern of ``grs`` (``{name: (L, H)}``)."""
    out = []
    for name, gr in grs.items():
        g = gr.double().flatten()
        H = gr.shape[-1]
        i = int(torch.argmax(g))
        sd = float(g.std(unbiased=False))
        z = (float(g[i]) - float(g.mean())) / sd if sd > 0 else 0.0
        sig = tuple((int(l), int(h)) for l, h in
                    significant_heads(gr, n_sigma).nonzero().tolist())
        out.append(Finding(name, (i // H, i % H), float(g[i]), uniform[name], z, sig,
                           g.numel()))
    return out


def patterns_to_inject(found: Sequence[Finding],
                       injectable: Iterable[str] = tuple(HOW)) -> tuple[list[str], str]:
    """The patterns to inject into a smaller model, and why.

    The kept ones (3-sigma rule) that ``injectable`` names, in the order of
    ``found``; if none is, the injectable pattern whose best head lies furthest above
    uniform attention (the highest GR, not a kept pattern). Returns ``(names, "kept")``
    or ``([name], "highest GR")``.
    """
    can = set(injectable)
    mine = [f for f in found if f.pattern in can]
    if not mine:
        raise ValueError(f"none of {[f.pattern for f in found]} can be injected "
                         f"(injectable: {sorted(can)})")
    kept = [f.pattern for f in mine if f.kept]
    if kept:
        return kept, "kept"
    return [max(mine, key=lambda f: f.excess).pattern], "highest GR"


def hf_document_batches(tokenizer, texts: Sequence[str], max_len: int = 128,
                        batch_size: int = 16) -> list[Batch]:
    """:func:`document_batches` for a Hugging Face tokenizer: ``[CLS] pieces [SEP]``
    cut to ``max_len`` ids (the final ``[SEP]`` kept), padded with its pad id."""
    rows = [tokenizer(t, truncation=True, max_length=max_len)["input_ids"]
            for t in texts if t.strip()]
    return _padded_batches(rows, tokenizer.pad_token_id, batch_size)


def hf_encoder_patterns(tokenizer) -> dict:
    """``previous``, ``next``, and the key ``[CLS]`` and the key ``[SEP]`` apart
    (Clark et al., 2019, found heads that park on each), keyed by those names."""
    return {"previous": "previous", "next": "next",
            "[CLS]": bind_pattern("special", ids=(tokenizer.cls_token_id,)),
            "[SEP]": bind_pattern("special", ids=(tokenizer.sep_token_id,))}


def hf_head_findings(model, tokenizer, texts: Sequence[str], max_len: int = 128,
                     n_sigma: float = 3.0,
                     batch_size: int = 16) -> tuple[dict[str, torch.Tensor],
                                                    list[Finding]]:
    """What fraction of each head's attention goes to the previous token, the next
    token, ``[CLS]`` and ``[SEP]`` over ``texts``, and the heads that stand out.

    Args:
        model, tokenizer: a Hugging Face encoder with eager attention
            (``lamalib.models.hf_encoder.load_encoder``).
        texts: one document each, cut to ``max_len`` tokens.
        n_sigma: the rule of :func:`findings` (Li et al.'s 3 sigma).

    Returns ``({pattern: GR (L, H)}, findings)``: GR is eq. (1), the mean over
    documents of the attention a query puts on the pattern's keys.
    """
    batches = hf_document_batches(tokenizer, texts, max_len, batch_size)
    patterns = hf_encoder_patterns(tokenizer)
    grs = global_relevance(model, batches, patterns, attention=lambda m, b:
                           hf_attentions(m, b.tokens, b.mask))  # {name: (L, H)}
    return grs, findings(grs, uniform_reference(batches, patterns), n_sigma)
