"""Beam search for the course's seq2seq models (chapter "The Transformer").

Greedy decoding (``seq2seq.greedy_tokens``) keeps one prefix and appends its most
likely next token. Beam search keeps the ``beam_width`` most probable prefixes
(scored by the sum of their tokens' log-probabilities, ``log p(y | x)``),
extends each by every token and keeps the best ``beam_width`` again. A prefix that
emits EOS is finished; the search stops once no live prefix can still beat the best
finished one (log-probabilities only fall as a prefix grows) or after ``max_len``
tokens. Width 1 is greedy decoding; a width that never prunes is exhaustive search.

It works for any model registered in ``PREFIX_SCORERS`` (the GRU ``Seq2Seq`` and the
Transformer ``EncoderDecoder``): a scorer encodes one source once and returns
``next_logits(prefix (N, t)) -> logits (N, t, V)`` for N prefixes of that source.
``decode(model, src, src_mask, beam_width)`` picks greedy decoding for width 1.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

from lamalib.data.datasets.translation import BOS_ID, EOS_ID, PAD_ID
from lamalib.models.seq2seq import Seq2Seq
from lamalib.nn.transformer import EncoderDecoder

NextLogits = Callable[[torch.Tensor], torch.Tensor]


def _transformer_scorer(model: EncoderDecoder, src: torch.Tensor,
                        src_mask: torch.Tensor) -> NextLogits:
    memory = model.encode(src, src_mask)  # (1, S, D)

    def next_logits(prefix: torch.Tensor) -> torch.Tensor:
        n = prefix.shape[0]
        return model.decode(prefix, memory.expand(n, -1, -1),
                            src_mask.expand(n, -1))  # (N, t, V)

    return next_logits


def _gru_scorer(model: Seq2Seq, src: torch.Tensor,
                src_mask: torch.Tensor) -> NextLogits:
    memory, s0 = model.encoder(src, src_mask)  # (1, S, D), (1, D)

    def next_logits(prefix: torch.Tensor) -> torch.Tensor:
        n = prefix.shape[0]
        logits, _ = model.decoder(prefix, memory.expand(n, -1, -1),
                                  src_mask.expand(n, -1), s0.expand(n, -1))
        return logits  # (N, t, V)

    return next_logits


PREFIX_SCORERS: dict[type, Callable[..., NextLogits]] = {
    EncoderDecoder: _transformer_scorer,
    Seq2Seq: _gru_scorer,
}


def prefix_scorer(model: nn.Module, src: torch.Tensor,
                  src_mask: torch.Tensor) -> NextLogits:
    """``next_logits`` for one source ``src (1, S)``, found by the model's class."""
    for cls in type(model).__mro__:
        if cls in PREFIX_SCORERS:
            return PREFIX_SCORERS[cls](model, src, src_mask)
    raise TypeError(f"no prefix scorer for {type(model).__name__}; register one in "
                    "lamalib.models.beam.PREFIX_SCORERS")


def beam_tokens(next_logits: NextLogits, beam_width: int, max_len: int,
                device: torch.device | str = "cpu") -> tuple[torch.Tensor, float]:
    """Beam search for one source.

    Args:
        next_logits: ``prefix (N, t) -> logits (N, t, V)``, e.g. from
            :func:`prefix_scorer`.
        beam_width: prefixes kept at every step (1: greedy decoding).
        max_len: most tokens generated; a prefix cut there counts as an output, as in
            greedy decoding.

    Returns:
        ``tokens (T,)`` (EOS included if emitted) and their total log-probability.
    """
    if beam_width < 1:
        raise ValueError(f"beam_width must be >= 1, got {beam_width}")
    prefixes = torch.full((1, 1), BOS_ID, dtype=torch.long, device=device)  # (K, t)
    scores = torch.zeros(1, device=device)  # (K,) log p(prefix)
    finished: list[tuple[float, torch.Tensor]] = []
    for _ in range(max_len):
        log_p = next_logits(prefixes)[:, -1].float().log_softmax(-1)  # (K, V)
        V = log_p.shape[-1]
        total = (scores[:, None] + log_p).flatten()  # (K V,) log p(prefix + token)
        top, index = total.topk(min(beam_width, total.numel()))  # best K extensions
        rows, tokens = index // V, index % V
        for score, row in zip(top[tokens == EOS_ID], rows[tokens == EOS_ID]):
            finished.append((float(score), torch.cat([prefixes[row, 1:],
                                                      prefixes.new_tensor([EOS_ID])])))
        # The live beam: the best K extensions that did not end.
        live = total.clone()
        live.view(-1, V)[:, EOS_ID] = float("-inf")
        top, index = live.topk(min(beam_width, live.numel()))
        keep = top > float("-inf")
        top, index = top[keep], index[keep]
        prefixes = torch.cat([prefixes[index // V], (index % V)[:, None]], 1)
        scores = top  # (K,)
        best_done = max((s for s, _ in finished), default=float("-inf"))
        if not len(scores) or best_done >= float(scores.max()):
            break  # no live prefix can still beat the best finished output
    else:
        finished += [(float(s), p[1:]) for s, p in zip(scores, prefixes)]
    score, tokens = max(finished, key=lambda item: item[0])
    return tokens, score


@torch.no_grad()
def beam_decode(model: nn.Module, src: torch.Tensor, src_mask: torch.Tensor,
                beam_width: int = 4, max_len: int = 20
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """Beam search for every source of a batch (one at a time, its beams batched).

    Args:
        model: a seq2seq model with a scorer in ``PREFIX_SCORERS``.
        src, src_mask: ``(B, S)`` source ids and mask.

    Returns:
        ``tokens (B, T)`` (EOS included, PAD after it, like ``greedy_decode``) and the
        log-probability of each output ``(B,)``.
    """
    was_training = model.training
    model.eval()
    outputs, scores = [], []
    for b in range(src.shape[0]):
        n = int(src_mask[b].sum())  # drop the padding of this row
        scorer = prefix_scorer(model, src[b : b + 1, :n], src_mask[b : b + 1, :n])
        tokens, score = beam_tokens(scorer, beam_width, max_len, src.device)
        outputs.append(tokens)
        scores.append(score)
    model.train(was_training)
    width = max(len(t) for t in outputs)
    tokens = torch.full((len(outputs), width), PAD_ID, dtype=torch.long,
                        device=src.device)
    for b, t in enumerate(outputs):
        tokens[b, : len(t)] = t
    return tokens, torch.tensor(scores, device=src.device)  # (B, T), (B,)


@torch.no_grad()
def sequence_log_prob(model: nn.Module, src: torch.Tensor, src_mask: torch.Tensor,
                      tokens: torch.Tensor) -> torch.Tensor:
    """Log-probability of given outputs ``tokens (B, T)`` (EOS included, PAD after):
    the sum over their tokens of ``log p(y_t | y_<t, source)``, teacher forced.
    Returns ``(B,)``."""
    was_training = model.training
    model.eval()
    B = tokens.shape[0]
    bos = torch.full((B, 1), BOS_ID, dtype=torch.long, device=tokens.device)
    tgt_in = torch.cat([bos, tokens[:, :-1]], 1)  # (B, T)
    # Count every token up to and including the first EOS (or all, if none).
    ended = (tokens == EOS_ID).long().cumsum(1)  # (B, T)
    keep = (ended == 0) | ((ended == 1) & (tokens == EOS_ID))  # (B, T)
    out = model(src, src_mask, tgt_in, keep)
    logits = out[0] if isinstance(out, tuple) else out  # (B, T, V)
    log_p = logits.float().log_softmax(-1).gather(-1, tokens[..., None])[..., 0]
    model.train(was_training)
    return (log_p * keep).sum(1)  # (B,)


@torch.no_grad()
def decode(model: nn.Module, src: torch.Tensor, src_mask: torch.Tensor,
           beam_width: int = 1, max_len: int = 20) -> torch.Tensor:
    """Outputs of a seq2seq model for a batch ``src (B, S)``: greedy decoding for
    ``beam_width`` 1, else :func:`beam_decode`. Returns ``tokens (B, T)`` (EOS
    included, PAD after it)."""
    if beam_width == 1:
        was_training = model.training
        tokens = model.eval().greedy_decode(src, src_mask, max_len)[0]
        model.train(was_training)
        return tokens
    return beam_decode(model, src, src_mask, beam_width, max_len)[0]
