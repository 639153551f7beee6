"""What makes a pretraining run: :class:`PretrainConfig`, the quick profile's
:data:`QUICK` and :func:`default_config`, without torch; read by the ``pretrain``
command's parser (:mod:`lamalib.experiments.pretrain_command`) and by the run itself
(:mod:`lamalib.experiments.pretrain`)."""

from __future__ import annotations

from dataclasses import dataclass

from lamalib import runtime


@dataclass
class PretrainConfig:
    """Everything that makes a pretraining run; the full profile's defaults."""

    corpus: str = "imdb"  # a name of PRETRAINING_CORPORA
    valid_one_in: int = 100  # one document in this many is held out (by its hash)
    valid_segments: int = 256  # held-out segments scored at every checkpoint
    # WordPiece V. Half-precision weights must fit 15 MB: V x 256 embeddings (4.1 MB at
    # 8,000) + 4 layers x 0.79M weights (6.3 MB) = 10.6 MB; V = 8,000 keeps 98% of
    # IMDB's words whole or in 2 pieces and the output layer cheap on a CPU.
    vocab_size: int = 8000
    min_frequency: int = 2  # a WordPiece merge must be seen this often
    n_layers: int = 4  # the encoder (BERT-base: 12 layers, width 768, 12 heads)
    d_model: int = 256  # D
    n_heads: int = 4  # H
    d_ff: int = 1024  # 4 D
    # About one pass over the data leaves nothing to overfit, and dropout slows
    # learning: none (as Geiping & Goldstein's "Cramming" BERT); fine-tuning may add it.
    dropout: float = 0.0
    max_len: int = 128  # segment length in subword tokens, [CLS] and [SEP] included
    select_prob: float = 0.15  # share of tokens predicted; 80/10/10 mask/random/keep
    steps: int = 4000  # optimiser updates; the learning-rate schedule spans them
    batch_size: int = 32  # segments per update (32 x 128 = 4,096 tokens)
    lr: float = 5e-4  # peak learning rate (AdamW)
    warmup: float = 0.06  # share of the updates that warm the rate up (RoBERTa: 6%)
    schedule: str = "warmup_linear_decay"  # then down to 0 at the last update (BERT)
    weight_decay: float = 0.01  # AdamW's decoupled decay (BERT)
    betas: tuple[float, float] = (0.9, 0.98)  # beta2 0.98 steadies small batches
    clip_grad: float = 1.0  # max gradient norm
    eval_every: int = 100  # updates between checkpoints, validation scores, log lines
    seed: int = 0  # weights, data order and masks (shifted by LAMALIB_SEED)

    @property
    def warmup_steps(self) -> int:
        return max(1, round(self.warmup * self.steps))

    def model_options(self) -> dict:
        """The :class:`~lamalib.models.mlm.MLMConfig` fields of this run."""
        return {k: getattr(self, k) for k in ("n_layers", "d_model", "n_heads", "d_ff",
                                              "dropout", "max_len")}


# The quick profile: the embedded Lee corpus and a tiny model, seconds on a CPU (the
# tests run it).
QUICK = dict(corpus="lee", valid_one_in=20, valid_segments=32, vocab_size=1000,
             n_layers=2, d_model=64, n_heads=2, d_ff=128, max_len=64, steps=40,
             batch_size=16, lr=1e-3, eval_every=10)


def default_config(**overrides) -> PretrainConfig:
    """The profile's configuration (``LAMALIB_PROFILE``), then ``overrides`` (None
    values are ignored)."""
    base = QUICK if runtime.profile() == "quick" else {}
    return PretrainConfig(**{**base, **{k: v for k, v in overrides.items()
                                        if v is not None}})
