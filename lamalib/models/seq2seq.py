"""GRU encoder-decoder, Bahdanau or Luong attention (chapter "Attention mechanisms").

The encoder is a bidirectional GRU; the decoder reads the encoder states through
:class:`lamalib.nn.attention.Attention` with any registered score. The two decoders
differ in *when* they attend (eqs. (17) and (18) of the chapter):

* Bahdanau: the previous decoder state ``s_{t-1}`` queries the source, and the context
  is an input of the GRU step, so the decoder must run one step at a time;
* Luong: the GRU runs first, the new state ``s_t`` queries the source, and the context
  only shapes the output; with teacher forcing all T steps then run in one call.

``decoder="plain"`` is the baseline without attention
(:class:`lamalib.models.seq2seq_plain.PlainDecoder`); its weights are ``None``.

``seq2seq_step`` plugs the model into :func:`lamalib.train.fit`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.data.datasets.translation import BOS_ID, EOS_ID, PAD_ID
from lamalib.models.registry import register_model
from lamalib.models.seq2seq_plain import PlainDecoder
from lamalib.nn.attention.local import LocalAttention
from lamalib.nn.attention.unified import Attention
from lamalib.nn.recurrent.bigru import BiGRU
from lamalib.train import StepOutput
from lamalib.train.steps import smoothing


class Encoder(nn.Module):
    """Embed the source and run a BiGRU; ``forward(src (B, S), mask (B, S))`` returns
    ``memory (B, S, D)`` and the decoder's first state ``s0 (B, D)``."""

    def __init__(self, vocab_size: int, d_emb: int, d_hidden: int) -> None:
        super().__init__()
        if d_hidden % 2:
            raise ValueError(f"d_hidden must be even (two directions), got {d_hidden}")
        self.embed = nn.Embedding(vocab_size, d_emb, padding_idx=PAD_ID)
        self.rnn = BiGRU(d_emb, d_hidden // 2)
        self.init = nn.Linear(d_hidden // 2, d_hidden)

    def forward(self, src: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        memory = self.rnn(self.embed(src), mask)  # (B, S, D)
        # Bahdanau's choice: the backward state at position 0 has read the whole source.
        backward_first = memory[:, 0, self.rnn.hidden_size :]  # (B, D/2)
        return memory, torch.tanh(self.init(backward_first))  # (B, S, D), (B, D)


class BahdanauDecoder(nn.Module):
    """Attend with ``s_{t-1}``, step the GRU on ``[y_{t-1}; c_t]`` (eq. (17)).

    ``forward(tgt_in (B, T), memory (B, S, D), mask (B, S), s0 (B, D))`` returns
    ``logits (B, T, V)`` and ``weights (B, T, S)``.
    """

    def __init__(self, vocab_size: int, d_emb: int, d_hidden: int,
                 score: str = "additive", **score_kwargs) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_emb, padding_idx=PAD_ID)
        self.attention = Attention(score, d_hidden, d_hidden, **score_kwargs)
        self.cell = nn.GRUCell(d_emb + d_hidden, d_hidden)
        self.out = nn.Linear(2 * d_hidden + d_emb, vocab_size)

    def forward(self, tgt_in, memory, mask, s0):
        emb = self.embed(tgt_in)  # (B, T, E)
        state, logits, weights = s0, [], []
        for t in range(tgt_in.shape[1]):
            context, a = self.attention(state, memory, memory, mask)  # (B, D), (B, S)
            state = self.cell(torch.cat([emb[:, t], context], -1), state)  # (B, D)
            logits.append(self.out(torch.cat([state, context, emb[:, t]], -1)))
            weights.append(a)
        return torch.stack(logits, 1), torch.stack(weights, 1)  # (B, T, V), (B, T, S)


class LuongDecoder(nn.Module):
    """Step the GRU, attend with ``s_t``, output ``W_s tanh(W_c [c_t; s_t])``
    (eq. (18); no input feeding, so teacher forcing runs all steps at once).

    Same shapes as :class:`BahdanauDecoder`.
    """

    def __init__(self, vocab_size: int, d_emb: int, d_hidden: int,
                 score: str = "general", **score_kwargs) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_emb, padding_idx=PAD_ID)
        self.rnn = nn.GRU(d_emb, d_hidden, batch_first=True)
        self.attention = Attention(score, d_hidden, d_hidden, **score_kwargs)
        self.combine = nn.Linear(2 * d_hidden, d_hidden)
        self.out = nn.Linear(d_hidden, vocab_size)

    def forward(self, tgt_in, memory, mask, s0):
        states, _ = self.rnn(self.embed(tgt_in), s0[None])  # (B, T, D)
        context, weights = self.attention(states, memory, memory, mask)  # (B, T, D)
        attentional = torch.tanh(self.combine(torch.cat([context, states], -1)))
        return self.out(attentional), weights  # (B, T, V), (B, T, S)


class LocalLuongDecoder(LuongDecoder):
    """Luong's decoder with local-p attention (:class:`LocalAttention`, eqs. (15)
    and (16)): each step predicts a centre ``p_t`` in the source and attends within
    ``window`` positions of it, weighted by a Gaussian. Same shapes as
    :class:`LuongDecoder`."""

    def __init__(self, vocab_size: int, d_emb: int, d_hidden: int,
                 score: str = "general", window: int = 2) -> None:
        super().__init__(vocab_size, d_emb, d_hidden, score)
        self.attention = LocalAttention(d_hidden, d_hidden, window, score,
                                        predictive=True)


DECODERS = {"bahdanau": BahdanauDecoder, "luong": LuongDecoder,
            "luong_local": LocalLuongDecoder, "plain": PlainDecoder}
DEFAULT_SCORES = {"bahdanau": "additive", "luong": "general", "luong_local": "general",
                  "plain": None}


@register_model("rnn_seq2seq", kind="seq2seq")
class Seq2Seq(nn.Module):
    """BiGRU encoder + attention decoder (or the plain decoder without attention).

    Args:
        vocab_size: V, shared by source and target (ids of
            ``lamalib.data.datasets.translation``).
        d_emb, d_hidden: embedding width E and state width D (even).
        decoder: ``"bahdanau"``, ``"luong"``, ``"luong_local"`` (local-p) or
            ``"plain"`` (no attention).
        score: a registered score name; None picks ``additive`` for Bahdanau and
            ``general`` for Luong, as in the papers (and none for ``"plain"``).
        tgt_vocab_size: the target's vocabulary size when the target has its own
            vocabulary (real translation); None: the source's ``vocab_size``.
        **score_kwargs: passed to the score (e.g. ``max_len`` for ``location``), or
            ``window`` (D) for ``"luong_local"``.

    ``forward(src (B, S), src_mask (B, S), tgt_in (B, T), tgt_mask=None)`` returns
    ``logits (B, T, V)`` and ``weights (B, T, S)`` (teacher forcing; None for
    ``"plain"``).
    """

    def __init__(self, vocab_size: int, d_emb: int = 32, d_hidden: int = 64,
                 decoder: str = "bahdanau", score: str | None = None,
                 tgt_vocab_size: int | None = None, **score_kwargs) -> None:
        super().__init__()
        if decoder not in DECODERS:
            raise ValueError(f"decoder must be in {sorted(DECODERS)}, got {decoder!r}")
        score = score or DEFAULT_SCORES[decoder]
        self.encoder = Encoder(vocab_size, d_emb, d_hidden)
        self.decoder = DECODERS[decoder](tgt_vocab_size or vocab_size, d_emb, d_hidden,
                                         score, **score_kwargs)

    def forward(self, src, src_mask, tgt_in, tgt_mask=None):
        # tgt_mask is accepted for a common interface with Transformers; an RNN decoder
        # is causal by construction and padding at the end never reaches earlier steps.
        memory, s0 = self.encoder(src, src_mask)  # (B, S, D), (B, D)
        return self.decoder(tgt_in, memory, src_mask, s0)  # (B, T, V), (B, T, S)

    @torch.no_grad()
    def greedy_decode(self, src: torch.Tensor, src_mask: torch.Tensor, max_len: int
                      ) -> tuple[torch.Tensor, torch.Tensor]:
        """Feed back the most likely token until EOS or ``max_len`` tokens.

        Returns ``tokens (B, T)`` (EOS included, PAD after it), ``weights (B, T, S)``
        (None without attention).
        The decoder is re-run on the growing prefix: O(T^2) steps, fine for short
        outputs, and it needs no separate incremental code path.
        """
        memory, s0 = self.encoder(src, src_mask)  # (B, S, D), (B, D)
        weights = []

        def next_logits(prefix: torch.Tensor) -> torch.Tensor:
            logits, w = self.decoder(prefix, memory, src_mask, s0)  # (B, t, V)
            weights[:] = [w]  # (B, t, S): keep the last step's alignment
            return logits

        tokens = greedy_tokens(next_logits, src.shape[0], src.device, max_len)
        return tokens, weights[0]  # (B, T), (B, T, S) or None


def greedy_tokens(next_logits, batch_size: int, device: torch.device,
                  max_len: int) -> torch.Tensor:
    """The greedy loop shared by every seq2seq model of the course.

    ``next_logits(prefix (B, t)) -> logits (B, t, V)`` runs the decoder on the prefix;
    the most likely last token is appended until every row has emitted EOS or
    ``max_len`` tokens exist. Returns ``tokens (B, T)``: EOS included, PAD after it.
    """
    prefix = torch.full((batch_size, 1), BOS_ID, dtype=torch.long, device=device)
    done = torch.zeros(batch_size, dtype=torch.bool, device=device)  # (B,)
    for _ in range(max_len):
        nxt = next_logits(prefix)[:, -1].argmax(-1).masked_fill(done, PAD_ID)  # (B,)
        prefix = torch.cat([prefix, nxt[:, None]], 1)  # (B, t + 1)
        done |= nxt == EOS_ID
        if done.all():
            break
    return prefix[:, 1:]  # (B, T)


def seq2seq_step(model: nn.Module, batch, label_smoothing: float = 0.0
                 ) -> StepOutput:
    """Token-level cross-entropy on ``batch.tgt_out`` where ``batch.tgt_mask`` is True.

    Works for any model ``model(src, src_mask, tgt_in, tgt_mask)`` that returns logits
    ``(B, T, V)`` or a tuple starting with them (RNN or Transformer seq2seq alike).
    ``label_smoothing`` applies in training only (``lamalib.train.steps.smoothing``);
    pass it with ``functools.partial(seq2seq_step, label_smoothing=0.1)``.
    """
    out = model(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask)
    logits = out[0] if isinstance(out, tuple) else out  # (B, T, V)
    keep = batch.tgt_mask  # (B, T)
    loss = F.cross_entropy(logits[keep].float(), batch.tgt_out[keep],
                           label_smoothing=smoothing(model, label_smoothing))
    correct = int((logits.argmax(-1) == batch.tgt_out)[keep].sum())
    return StepOutput(loss, correct, int(keep.sum()))


def alignment_accuracy(weights: torch.Tensor, alignment: torch.Tensor) -> float:
    """Fraction of target positions whose most-attended source position is the true one.

    ``weights (B, T, S)``, ``alignment (B, T)`` with ``-1`` where there is no source
    token to align with (EOS, padding); those positions are not scored.
    """
    hits, scored = _alignment_hits(weights, alignment)
    return hits / max(scored, 1)


def _alignment_hits(weights: torch.Tensor, alignment: torch.Tensor) -> tuple[int, int]:
    scored = alignment >= 0  # (B, T)
    hits = (weights.argmax(-1) == alignment) & scored  # (B, T)
    return int(hits.sum()), int(scored.sum())


@torch.no_grad()
def translation_metrics(model: Seq2Seq, loader) -> dict[str, float]:
    """Token accuracy (teacher forcing), exact-match sequence accuracy (greedy decoding)
    and alignment accuracy (teacher-forced weights vs the true alignment; NaN for a
    model without attention weights)."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    sums = dict(tokens=0, token_hits=0, seqs=0, seq_hits=0, aligned=0, align_hits=0)
    for batch in loader:
        batch = batch.to(device)
        logits, weights = model(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask)
        keep = batch.tgt_mask
        sums["tokens"] += int(keep.sum())
        sums["token_hits"] += int((logits.argmax(-1) == batch.tgt_out)[keep].sum())
        if weights is not None:  # the plain decoder has no alignment to grade
            hits, scored = _alignment_hits(weights, batch.alignment)
            sums["align_hits"] += hits
            sums["aligned"] += scored
        T = batch.tgt_out.shape[1]
        tokens, _ = model.greedy_decode(batch.src, batch.src_mask, T)
        tokens = F.pad(tokens, (0, T - tokens.shape[1]), value=PAD_ID)  # (B, T)
        right = ((tokens == batch.tgt_out) | ~keep).all(-1)  # (B,)
        sums["seqs"] += len(batch)
        sums["seq_hits"] += int(right.sum())
    model.train(was_training)
    return {
        "token_accuracy": sums["token_hits"] / max(sums["tokens"], 1),
        "sequence_accuracy": sums["seq_hits"] / max(sums["seqs"], 1),
        "alignment_accuracy": (sums["align_hits"] / sums["aligned"]
                               if sums["aligned"] else float("nan")),
    }
