"""The Multi-Scale Transformer classifier of Guo et al. (2020) (chapter "Multi-scale
self-attention").

Word embeddings (no positional embedding: small scales give the order), a learned
``[CLS]`` node prepended to every sequence, L layers of eq. (5), then the ``[CLS]``
node's final state concatenated with a max-pool over all positions, and a two-layer
MLP. Each layer's heads get their scales from the controller, eqs. (6)-(7), or from
``layer_scales`` when given explicitly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from lamalib.nn.recurrent.embedding import word_embedding
from lamalib.nn.multiscale import MultiScaleLayer, Scale, check_scale
from lamalib.nn.pooling import masked_max
from lamalib.nn.multiscale.scales import heads_for_layer, scale_distribution
from lamalib.models.registry import register_model


@dataclass
class MSTransformerConfig:
    embed_dim: int = 300  # E: the paper starts from 300-d GloVe vectors
    d_model: int = 300  # D: hidden width (ours: Table 1's values are not in our copy)
    n_layers: int = 3  # L (ours; the paper's example of the controller uses 3)
    n_heads: int = 10  # N' heads per layer (ours; the paper's example uses 10)
    scales: str = "1,3,N/16,N/8,N/4"  # candidates Ω: Table 1 for SST, MTL-16, SNLI
    alpha: float = 0.5  # α of eq. (6) (ours; the paper's example uses 0.5)
    reading: str = "printed"  # which reading of eq. (6): "printed" or "distance"
    window: str = "width"  # ω as the window's odd width (the text) or "radius" (eq. 7)
    layer_scales: str = ""  # explicit scales, layers split by "|": "3,3|1,N/4"
    dropout: float = 0.1  # on embeddings, attention and sublayers (ours)
    mlp_hidden: int = 300  # hidden units of the two-layer classifier (ours)
    kernel: str = "auto"  # "auto", "window", "blocked" or "dense": same function
    pad_id: int = 0  # padding id: zero embedding, masked everywhere


def parse_scales(text: str | list, window: str = "width") -> list[Scale]:
    """``"1,3,N/16"`` -> ``[1, 3, "N/16"]`` (a list is checked and kept); under
    ``window="width"`` a constant must be odd."""
    items = text if isinstance(text, (list, tuple)) else [
        s.strip() for s in str(text).split(",") if s.strip()]
    out = []
    for s in items:
        kind, value = check_scale(s, window)
        out.append(value if kind == "const" else f"N/{value}")
    return out


def plan_layers(cfg: MSTransformerConfig) -> list[list[Scale]]:
    """One list of scales (one per head) for every layer."""
    if cfg.layer_scales:
        layers = [parse_scales(part, cfg.window)
                  for part in str(cfg.layer_scales).split("|")]
        if len(layers) != cfg.n_layers or any(len(h) != cfg.n_heads for h in layers):
            raise ValueError(
                f"layer_scales {cfg.layer_scales!r} must give {cfg.n_layers} layers "
                f"of {cfg.n_heads} scales each, split by '|'")
        return layers
    candidates = parse_scales(cfg.scales, cfg.window)
    counts = scale_distribution(cfg.alpha, cfg.n_heads, cfg.n_layers,
                                len(candidates), cfg.reading)  # eqs. (6)-(7)
    return [heads_for_layer(c, candidates) for c in counts]


@register_model("ms_transformer")
class MSTransformerClassifier(nn.Module):
    """Multi-Scale Transformer for classification (Guo et al. 2020).

    Args:
        vocab_size: V. num_classes: C.
        pretrained: optional ``(V, embed_dim)`` word vectors (e.g. word2vec).
        freeze_embeddings: keep the (pretrained) embeddings fixed.
        **config: any field of :class:`MSTransformerConfig`.

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``.
    """

    options_from = MSTransformerConfig
    head = "classifier"  # r -> logits; a pair classifier keeps only represent()

    def __init__(self, vocab_size: int, num_classes: int,
                 pretrained: torch.Tensor | None = None,
                 freeze_embeddings: bool = False, **config) -> None:
        super().__init__()
        cfg = self.config = self.options_from(**config)
        self.embed = word_embedding(vocab_size, cfg.embed_dim, pretrained,
                                    freeze_embeddings, cfg.pad_id)
        # A projection only when the word vectors are narrower or wider than D.
        self.project = (nn.Identity() if cfg.embed_dim == cfg.d_model
                        else nn.Linear(cfg.embed_dim, cfg.d_model))
        self.cls = nn.Parameter(torch.randn(cfg.d_model) * 0.02)  # the [CLS] node
        self.positions = self.build_positions(cfg)
        self.dropout = nn.Dropout(cfg.dropout)
        self.layers = self.build_layers(cfg)
        self.classifier = nn.Sequential(  # the paper's two-layer MLP
            nn.Linear(2 * cfg.d_model, cfg.mlp_hidden), nn.ReLU(),
            nn.Dropout(cfg.dropout), nn.Linear(cfg.mlp_hidden, num_classes))

    def build_positions(self, cfg) -> nn.Module:
        """None: small scales give the order (the paper's section on eq. (5))."""
        return nn.Identity()

    def build_layers(self, cfg) -> nn.ModuleList:
        """L layers of eq. (5), each head with the scale the controller gives it."""
        self.layer_scales = plan_layers(cfg)
        return nn.ModuleList(
            MultiScaleLayer(cfg.d_model, scales, cfg.dropout, cfg.kernel, cfg.window)
            for scales in self.layer_scales)

    def run_layer(self, layer: nn.Module, h: torch.Tensor, mask: torch.Tensor,
                  need_weights: bool) -> torch.Tensor:
        """One layer on ``h (B, 1 + T, D)`` -> ``(B, 1 + T, D)``."""
        return layer(h, mask, need_weights)  # eq. (5)

    def encode(self, tokens: torch.Tensor, mask: torch.Tensor,
               need_weights: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """States of ``[CLS]`` + tokens after the last layer, ``(B, 1 + T, D)``, and
        their mask ``(B, 1 + T)``."""
        B = tokens.shape[0]
        x = self.project(self.embed(tokens))  # (B, T, D)
        cls = self.cls.expand(B, 1, -1)  # (B, 1, D)
        h = self.dropout(self.positions(torch.cat([cls, x], 1)))  # (B, 1 + T, D)
        mask = torch.cat([mask.new_ones(B, 1), mask.to(torch.bool)], 1)  # (B, 1 + T)
        for layer in self.layers:
            h = self.run_layer(layer, h, mask, need_weights)  # (B, 1 + T, D)
        return h, mask

    def represent(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The sentence vector r: the ``[CLS]`` state and a max-pool, ``(B, 2 D)``
        (also r1, r2 of the pair classifier, ``lamalib.models.pair``)."""
        h, full_mask = self.encode(tokens, mask)  # (B, 1 + T, D)
        return torch.cat([h[:, 0], masked_max(h, full_mask)], -1)  # (B, 2 D)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        sentence = self.represent(tokens, mask)  # (B, 2 D)
        return self.classifier(self.dropout(sentence))  # (B, C)

    def attention_weights(self) -> list[torch.Tensor | None]:
        """Each layer's weights from the last ``encode(..., need_weights=True)``."""
        return [layer.attention.last_weights for layer in self.layers]

    def describe(self) -> dict:
        """The configuration, each layer's scales and the parameter count."""
        n_params = sum(p.numel() for p in self.parameters())
        return {**asdict(self.config), "layers": getattr(self, "layer_scales", None),
                "params": n_params}
