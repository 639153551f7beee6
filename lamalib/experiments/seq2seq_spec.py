"""What a seq2seq run is (:class:`Seq2SeqSpec`, its tasks and decoders), without
torch: the ``seq2seq`` command's ``--help`` reads it; :mod:`lamalib.experiments.
seq2seq_run` runs it (and re-exports these names)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TASKS = ("translate", "diacritics")
DECODERS = ("plain", "bahdanau", "luong", "luong_local")


@dataclass
class Seq2SeqSpec:
    """What a seq2seq run is. Sizes default to the small models the chapter's runs
    use on a CPU."""

    task: str = "translate"  # "translate" or "diacritics"
    decoder: str = "bahdanau"  # plain, bahdanau (additive), luong (general), luong_local
    score: str | None = None  # None: the decoder's paper's score
    window: int = 2  # D of luong_local (local-p)
    seed: int = 0  # weights and batch order
    pairs: str | None = None  # a pairs file (translate); None: the shipped Tatoeba
    text: str | None = None  # a sentences file (diacritics); None: Tatoeba's Vietnamese
    encoding: str = "utf-8"
    split_seed: int = 0  # the train / valid / test shuffle, the same for every arm
    valid_fraction: float = 0.1
    test_fraction: float = 0.1
    min_freq: int = 1  # rarer training tokens are <unk>
    d_emb: int = 64
    d_hidden: int = 128
    epochs: int = 40  # a cap; patience ends runs before it
    patience: int = 3
    lr: float = 3e-3
    batch_size: int = 32
    beam_width: int = 4
    limit: int | None = None  # use only the first N pairs (a quick run)
    name: str | None = None  # the results name's dataset part (default: the data's)

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)}, got {self.task!r}")
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {', '.join(DECODERS)}, got "
                             f"{self.decoder!r}")

    @property
    def dataset(self) -> str:
        if self.name:
            return self.name
        source = self.pairs if self.task == "translate" else self.text
        stem = Path(source).name.split(".")[0] if source else "tatoeba_en_vi"
        return f"{stem}_diacritics" if self.task == "diacritics" else stem

    @property
    def model_name(self) -> str:
        if self.decoder == "plain":
            return "plain"
        return f"{self.decoder}_{self.score}" if self.score else self.decoder

    def result_name(self) -> str:
        return f"seq2seq__{self.model_name}__{self.dataset}__s{self.seed}.json"

    def model_options(self) -> dict:
        options = {"d_emb": self.d_emb, "d_hidden": self.d_hidden,
                   "decoder": self.decoder, "score": self.score}
        if self.decoder == "luong_local":
            options["window"] = self.window
        return options


__all__ = ["DECODERS", "Seq2SeqSpec", "TASKS"]
