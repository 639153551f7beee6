"""The LAMA family of classifiers (chapter "LAMA").

Mehta et al. (arXiv 1912.00835), sections 3 and 4.2: word vectors, a BiGRU (h = 50 per
direction), low-rank multi-head attention against a global context
(:class:`lamalib.nn.lama.LowRankMultiHeadAttention`), the flattened ``S`` through an MLP
(hidden 512, dropout 0.4), cross-entropy plus an optional disagreement term.

Registered names, each a different default of :class:`LAMAConfig`:

* ``lama``: c learned from a random start (the paper's "LAMA").
* ``lama_ctx``: c = the mean of the document's word annotations ("LAMA+ctx").
* ``lama_ctx_de`` / ``lama_ctx_dp``: LAMA+ctx with the disagreement on the embeddings
  (paper eq. 19b) / on the positions (paper eq. 19a), lambda = 0.2.

Equation numbers as in :mod:`lamalib.nn.lama`: "eq. (N)" is the chapter "LAMA"'s,
"paper eq. M" the paper's; the equations the chapter does not display (the encoder,
eqs. 5-6, and the classifier, eqs. 16-17) are cited by the paper's number alone.
* ``le``: the LAMA Encoder of section 5.2, no RNN: H is the word embeddings plus
  learned positions.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from lamalib.nn.recurrent.bigru import BiGRU
from lamalib.nn.recurrent.embedding import word_embedding
from lamalib.nn.lama import DISAGREEMENTS, LowRankMultiHeadAttention
from lamalib.nn.transformer.positional import build_positional
from lamalib.models.registry import register_model


@dataclass
class LAMAConfig:
    embed_dim: int = 100  # E: 100-d word2vec vectors (section 3.5)
    hidden_size: int = 50  # h: GRU width per direction (section 3.5); D = 2h
    encoder: str = "bigru"  # "bigru" (paper eqs. 5-6) or "positions" (LE, section 5.2)
    positional: str = "learned"  # positions of the "positions" encoder (LE), or "none"
    max_positions: int = 512  # positions a learned table covers (LE)
    heads: int = 10  # m: the paper tunes it per task (section 4.2); 10 is ours
    rank: int = 1  # k: rank of each head's matrix (eq. (5), paper eq. 11: k = 1)
    context: str = "learned"  # "learned" (LAMA), "mean" (LAMA+ctx), "embedding_mean"
    normalize: str = "l2"  # l2 across heads (eq. (6), paper eq. 13) or "none"
    disagreement: str = "none"  # "none", "dp" (paper eq. 19a) or "de" (paper eq. 19b)
    penalty: float = 0.2  # lambda of eq. (8) (paper eq. 18, section 3.4)
    mlp_size: int = 512  # hidden layer of the classifier (section 3.5)
    dropout: float = 0.4  # on the classifier's hidden layer (section 3.5)


@dataclass
class LAMACtxConfig(LAMAConfig):
    context: str = "mean"


@dataclass
class LAMACtxDEConfig(LAMACtxConfig):
    disagreement: str = "de"


@dataclass
class LAMACtxDPConfig(LAMACtxConfig):
    disagreement: str = "dp"


@dataclass
class LEConfig(LAMACtxConfig):
    # No RNN: H = embeddings + learned positions (BERT's, started at N(0, 0.02)). The
    # paper fills H with the embeddings alone ("none", a bag of words). Sinusoids add a
    # vector of norm sqrt(E/2) ~ 7 to every word vector; under the paper's SGD (lr
    # 0.05) LE then collapsed on R8 (74.1% test), while learned positions, which start
    # small, reached 97.1% and "none" 96.9% (results/sweeps/le_positions, chapter LAMA).
    encoder: str = "positions"


ENCODERS = ("bigru", "positions")


@register_model("lama")
class LAMAClassifier(nn.Module):
    """Embed, encode, m low-rank heads against a global context, flatten, MLP.

    Args:
        vocab_size: V. num_classes: C.
        pretrained: optional ``(V, E)`` word vectors (word2vec in the paper).
        freeze_embeddings: keep the embeddings fixed (the paper fine-tunes them).
        **config: any field of this model's config dataclass (:class:`LAMAConfig`).

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``; ``last_weights`` holds
    ``A (B, m, T)``; ``regularization()`` returns ``penalty * D`` of the last forward
    (0 without a disagreement), which ``lamalib.train.fit`` adds to the loss, eq. (8)
    (paper eq. 18).
    """

    options_from = LAMAConfig  # build_model lists and checks these options

    def __init__(self, vocab_size: int, num_classes: int,
                 pretrained: torch.Tensor | None = None,
                 freeze_embeddings: bool = False, **config) -> None:
        super().__init__()
        cfg = self.config = self.options_from(**config)
        if cfg.encoder not in ENCODERS:
            raise ValueError(f"unknown encoder {cfg.encoder!r}; use one of {ENCODERS}")
        if cfg.disagreement != "none" and cfg.disagreement not in DISAGREEMENTS:
            raise ValueError(f"unknown disagreement {cfg.disagreement!r}; use 'none' "
                             f"or one of {sorted(DISAGREEMENTS)}")
        self.embed = word_embedding(vocab_size, cfg.embed_dim, pretrained,
                                    freeze=freeze_embeddings)
        if cfg.encoder == "bigru":
            self.encoder = BiGRU(cfg.embed_dim, cfg.hidden_size)  # paper eqs. 5-6
            width = self.encoder.output_size  # D = 2h
        else:
            self.encoder = (nn.Identity() if cfg.positional == "none" else
                            build_positional(cfg.positional, cfg.embed_dim,
                                             max_len=cfg.max_positions))
            width = cfg.embed_dim  # D = E
        if cfg.context == "embedding_mean" and cfg.embed_dim != width:
            raise ValueError(f"context='embedding_mean' averages the embeddings, so "
                             f"embed_dim ({cfg.embed_dim}) must equal the annotations' "
                             f"width D ({width})")
        self.attention = LowRankMultiHeadAttention(
            width, cfg.heads, cfg.rank, cfg.context, cfg.normalize)
        self.mlp = nn.Sequential(  # paper eq. 16, with the hidden layer of section 3.5
            nn.Linear(cfg.heads * width, cfg.mlp_size), nn.ReLU(),
            nn.Dropout(cfg.dropout), nn.Linear(cfg.mlp_size, num_classes),
        )
        self._weights: torch.Tensor | None = None  # A of the last forward, with grad
        self._sentence: torch.Tensor | None = None  # S of the last forward, with grad

    @property
    def last_weights(self) -> torch.Tensor | None:
        """``A (B, m, T)`` of the last forward, detached (for plots)."""
        return self.attention.last_weights

    def annotations(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The word annotations ``H (B, T, D)``, zero on pads."""
        return self._encode(self.embed(tokens), mask)  # x (B, T, E), paper eq. 5

    def _encode(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if self.config.encoder == "bigru":
            return self.encoder(x, mask)  # (B, T, 2h)
        return self.encoder(x) * mask[..., None]  # (B, T, E)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)  # (B, T, E), paper eq. 5
        states = self._encode(x, mask)  # (B, T, D)
        sentence, self._weights = self.attention(states, mask, x)  # (B,m,D), (B,m,T)
        self._sentence = sentence
        return self.mlp(sentence.flatten(1))  # (B, C): d = the rows of S, paper eq. 16

    def regularization(self) -> torch.Tensor:
        """``penalty * D`` of the last forward, eq. (8) (paper eqs. 18-19); 0 without
        one."""
        name = self.config.disagreement
        if name == "none" or self._weights is None or self.config.penalty == 0:
            return torch.zeros((), device=self.embed.weight.device)
        source = self._weights if name == "dp" else self._sentence
        return self.config.penalty * DISAGREEMENTS[name](source)

    def describe(self) -> dict:
        """The configuration and the parameter count, for tables in the book."""
        n_params = sum(p.numel() for p in self.parameters())
        return {**asdict(self.config), "params": n_params}


@register_model("lama_ctx")
class LAMACtxClassifier(LAMAClassifier):
    """LAMA+ctx: c is each document's mean word annotation (section 4.2)."""

    options_from = LAMACtxConfig


@register_model("lama_ctx_de")
class LAMACtxDEClassifier(LAMAClassifier):
    """LAMA+ctx+de: disagreement on the heads' embeddings, paper eq. 19b."""

    options_from = LAMACtxDEConfig


@register_model("lama_ctx_dp")
class LAMACtxDPClassifier(LAMAClassifier):
    """LAMA+ctx+dp: disagreement on the attended positions, paper eq. 19a."""

    options_from = LAMACtxDPConfig


@register_model("le")
class LEClassifier(LAMAClassifier):
    """LAMA Encoder (section 5.2): no RNN, H = embeddings + learned positions."""

    options_from = LEConfig
