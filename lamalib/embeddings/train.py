"""Train our word2vec on token lists (chapter "Word vectors").

A dedicated loop rather than ``lamalib.train.fit``: every epoch must draw a fresh
subsample of the corpus, fresh reduced windows and fresh noise words (section
"Training" of the chapter), and the data are index pairs built on the fly in chunks,
not the padded batches of a ``TextDataset`` that ``fit`` iterates over.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import torch

from lamalib import runtime
from lamalib.runtime import get_device, show_progress
from lamalib.embeddings.keyed_vectors import to_keyed_vectors
from lamalib.embeddings.sampling import (context_pairs, context_windows, draw_negatives,
                                         keep_probabilities, noise_distribution,
                                         subsample)
from lamalib.embeddings.word2vec import CBOW, SkipGram


@dataclass
class Word2VecConfig:
    """Settings shared by our word2vec and gensim's (``gensim_word2vec``)."""

    sg: bool = True  # True: skip-gram; False: CBOW
    dim: int = 100  # E, width of a word vector
    window: int = 5  # largest distance between center and context
    negative: int = 5  # K noise words per true pair
    ns_exponent: float = 0.75  # power of the noise distribution, eq. (4)
    sample: float = 1e-3  # subsampling threshold, eq. (5); 0 = off
    min_count: int = 5  # rarer words are dropped before training
    epochs: int = 5
    lr: float = 0.01  # Adam's learning rate (gensim's SGD has its own, alpha)
    batch_size: int = 4096  # pairs per step
    # Sparse gradients + SparseAdam touch only the rows of a batch: right for a large V.
    # For a small V (the quick profile) dense Adam is about twice as fast on a CPU.
    sparse: bool = True
    chunk_tokens: int = 200_000  # corpus tokens turned into pairs at a time (memory)
    seed: int = 0
    device: str | None = None  # None: lamalib.runtime.get_device()


@dataclass
class Word2VecRun:
    """What :func:`train_word2vec` returns."""

    words: list[str]  # the vocabulary, most frequent first
    counts: torch.Tensor  # (V,) corpus counts
    model: torch.nn.Module  # the trained SkipGram or CBOW
    losses: list[float] = field(default_factory=list)  # mean loss per pair, per epoch
    seconds: float = 0.0  # wall-clock training time (vocabulary building included)

    def keyed_vectors(self):
        """The input vectors as gensim ``KeyedVectors`` (neighbours, evaluation)."""
        return to_keyed_vectors(self.words, self.model.vectors.cpu().numpy())


def build_vocab(sentences: Sequence[Sequence[str]], min_count: int
                ) -> tuple[list[str], torch.Tensor]:
    """Words seen at least ``min_count`` times, most frequent first (ties: first seen,
    as gensim orders them), and their counts ``(V,)``."""
    counter = Counter(w for s in sentences for w in s)
    words = [w for w, n in counter.items() if n >= min_count]
    words.sort(key=lambda w: -counter[w])  # stable: ties keep first-seen order
    if not words:
        raise ValueError(
            f"No word occurs {min_count} times: lower min_count or add text.")
    return words, torch.tensor([counter[w] for w in words], dtype=torch.long)


def _encode(sentences: Sequence[Sequence[str]], index: dict[str, int]
            ) -> tuple[torch.Tensor, torch.Tensor]:
    """Concatenated in-vocabulary ids ``(N,)`` and their sentence numbers ``(N,)``.
    Out-of-vocabulary words are removed first, so windows span over them (as gensim)."""
    ids, sent = [], []
    for s_i, sentence in enumerate(sentences):
        kept = [index[w] for w in sentence if w in index]
        ids += kept
        sent += [s_i] * len(kept)
    return torch.tensor(ids, dtype=torch.long), torch.tensor(sent, dtype=torch.long)


def _chunks(sentence_of: torch.Tensor, size: int) -> list[tuple[int, int]]:
    """``(start, end)`` position ranges of about ``size`` tokens that end on a sentence
    boundary, so no window is cut."""
    bounds, start, N = [], 0, len(sentence_of)
    while start < N:
        end = min(start + size, N)
        while end < N and sentence_of[end] == sentence_of[end - 1]:
            end += 1
        bounds.append((start, end))
        start = end
    return bounds


def train_word2vec(sentences: Sequence[Sequence[str]], config: Word2VecConfig
                   ) -> Word2VecRun:
    """Train skip-gram or CBOW with negative sampling on token lists.

    Args:
        sentences: the corpus, a list of token lists.
        config: settings; the same object configures gensim's run.

    Returns:
        a :class:`Word2VecRun` with the vocabulary, the model and the loss per epoch.
    """
    start_time = time.perf_counter()
    seed = runtime.seed(config.seed)  # shifted by LAMALIB_SEED
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # the embedding initialization
    device = torch.device(config.device) if config.device else get_device()
    words, counts = build_vocab(sentences, config.min_count)
    ids, sentence_of = _encode(sentences, {w: i for i, w in enumerate(words)})
    keep = keep_probabilities(counts, config.sample)  # (V,)
    # Cumulative noise table: one searchsorted draws B*K noise words at once (gensim
    # draws from the same kind of cumulative table).
    cum = noise_distribution(counts, config.ns_exponent).double().cumsum(0)  # (V,)
    cum = (cum / cum[-1]).float().to(device)
    model_cls = SkipGram if config.sg else CBOW
    model = model_cls(len(words), config.dim, sparse=config.sparse).to(device)
    optim_cls = torch.optim.SparseAdam if config.sparse else torch.optim.Adam
    optimizer = optim_cls(model.parameters(), lr=config.lr)
    losses = []
    for epoch in range(config.epochs):
        total, n_pairs = 0.0, 0
        epoch_bar = _progress(_chunks(sentence_of, config.chunk_tokens), epoch)
        for lo, hi in epoch_bar:
            kept = subsample(ids[lo:hi], keep, gen)  # (n,)
            chunk_ids, chunk_sent = ids[lo:hi][kept], sentence_of[lo:hi][kept]
            if len(chunk_ids) < 2:
                continue
            batches = _examples(chunk_ids, chunk_sent, config, gen)
            for batch in batches:
                batch = [t.to(device) for t in batch]
                # The last tensor is the word scored by its output vector (skip-gram:
                # the context word; CBOW: the center word); no noise word equals it.
                negatives = draw_negatives(cum, batch[-1], config.negative)  # (B, K)
                loss = model(*batch, negatives)  # (B,)
                optimizer.zero_grad()
                loss.mean().backward()
                optimizer.step()
                total += float(loss.detach().sum())
                n_pairs += len(negatives)
        losses.append(total / max(n_pairs, 1))
    model.eval()
    seconds = time.perf_counter() - start_time
    return Word2VecRun(words, counts, model, losses, seconds)


def _examples(ids: torch.Tensor, sentence_of: torch.Tensor, config: Word2VecConfig,
              gen: torch.Generator) -> list[tuple[torch.Tensor, ...]]:
    """Shuffled mini-batches of training examples for one chunk of the corpus.

    Skip-gram: ``(center (B,), context (B,))`` word ids.
    CBOW: ``(context (B, 2W), mask (B, 2W), center (B,))``.
    """
    if config.sg:
        pairs = context_pairs(sentence_of, config.window, generator=gen)  # (P, 2)
        order = torch.randperm(len(pairs), generator=gen)
        data = (ids[pairs[order, 0]], ids[pairs[order, 1]])  # (P,), (P,)
    else:
        ctx, mask = context_windows(sentence_of, config.window, generator=gen)
        has_context = mask.any(dim=1)  # (N,)  a lone word predicts nothing
        rows = torch.nonzero(has_context).squeeze(1)
        rows = rows[torch.randperm(len(rows), generator=gen)]
        data = (ids[ctx[rows]], mask[rows], ids[rows])  # (N', 2W), (N', 2W), (N',)
    return [tuple(t[i:i + config.batch_size] for t in data)
            for i in range(0, len(data[0]), config.batch_size)]


def _progress(chunks: list, epoch: int):
    """A tqdm bar over the chunks of one epoch when progress bars are on."""
    if not show_progress():
        return chunks
    from tqdm.auto import tqdm

    return tqdm(chunks, desc=f"word2vec epoch {epoch + 1}", leave=False)

