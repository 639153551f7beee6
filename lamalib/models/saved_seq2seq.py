"""A trained seq2seq model kept as a folder, and asked to translate raw sentences
(chapter "Attention mechanisms", section "Attention on real sentences").

The folder has the classifiers' format (:mod:`lamalib.models.saved`) and is checked
the same way: ``model.json`` (format, version, the registered model ``rnn_seq2seq``,
its options, ``"kind": "seq2seq"``, the preprocessing), ``weights.safetensors`` (the
``state_dict``: tensors only, loading runs no code) and one
vocabulary per side, ``src_vocab.txt`` and ``tgt_vocab.txt`` (one token a line, in id
order). A save is atomic and never replaces another model unless asked, as a
classifier's. ``load_seq2seq(folder)`` gives a :class:`SavedSeq2Seq`:
``translate(texts, beam_width=)`` and ``attention(text)``, the cross-attention of the
output it writes (target tokens over source tokens). Every problem with a folder is a
:class:`~lamalib.models.saved.SavedModelError` naming the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import torch

from lamalib.data.batching import pad_sequences
from lamalib.data.datasets.translation import BOS_ID, EOS_ID
from lamalib.data.parallel import PairVocab
from lamalib.data.tokenize import tokenize
from lamalib.models.beam import decode
from lamalib.models.registry import build_model
from lamalib.models.saved import (_RESAVE, CONFIG, FORMAT, FORMAT_VERSION, TOKENIZER,
                                  WEIGHTS, SavedModelError, _fail, _read_weights,
                                  read_header, write_atomically)
from lamalib.provenance import lamalib_version

SRC_VOCAB, TGT_VOCAB = "src_vocab.txt", "tgt_vocab.txt"
KIND = "seq2seq"


@dataclass
class Translation:
    """One output: the tokens written (EOS dropped) and them joined by spaces."""

    tokens: list[str]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


@dataclass
class CrossAttention:
    """The decoder's attention while writing ``target`` from ``source``: ``weights``
    is ``(T, S)``, one row per target token (``<eos>`` last), summing to 1 over the
    source tokens (at most 1 for local attention); None for a model without."""

    source: list[str]
    target: list[str]
    weights: torch.Tensor | None


def save_seq2seq(model: torch.nn.Module, src_vocab: PairVocab, tgt_vocab: PairVocab,
                 folder: str | Path, options: dict, task: str = "translate",
                 max_len: int | None = None, overwrite: bool = False) -> Path:
    """Write ``model`` (``build_model("rnn_seq2seq", **options)``) with its two
    vocabularies into ``folder`` (made if missing); ``task`` and ``max_len`` (the
    longest output it writes by default) are recorded. Written as a classifier's
    folder is (:func:`~lamalib.models.saved.write_atomically`): whole or not at all,
    and a folder that holds anything is replaced only with ``overwrite``."""
    options = {k: v for k, v in options.items()
               if k not in ("vocab_size", "tgt_vocab_size")}
    json.dumps(options)  # fail before writing on an option JSON cannot keep
    config = {"format": FORMAT, "format_version": FORMAT_VERSION,
              "lamalib": lamalib_version(), "model": "rnn_seq2seq", "kind": KIND,
              "task": task, "options": options,
              "vocab_size": len(src_vocab), "tgt_vocab_size": len(tgt_vocab),
              "preprocessing": {"tokenizer": TOKENIZER, "lowercase": True,
                                "max_len": max_len}}
    return write_atomically(
        folder, lambda tmp: _write_seq2seq(model, src_vocab, tgt_vocab, tmp, config),
        overwrite, "save_seq2seq")


def _write_seq2seq(model, src_vocab: PairVocab, tgt_vocab: PairVocab, folder: Path,
                   config: dict) -> None:
    """Every file of a saved seq2seq model, into ``folder`` (a fresh temporary one)."""
    from safetensors.torch import save_file  # the classifiers' weights format

    save_file({k: v.detach().cpu().clone().contiguous()
               for k, v in model.state_dict().items()}, str(folder / WEIGHTS),
              metadata={"format": "pt"})
    for name, vocab in ((SRC_VOCAB, src_vocab), (TGT_VOCAB, tgt_vocab)):
        (folder / name).write_text("".join(t + "\n" for t in vocab.itos),
                                   encoding="utf-8")
    (folder / CONFIG).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def is_seq2seq_folder(folder: str | Path) -> bool:
    """Whether ``folder`` holds a model.json of kind seq2seq (a classifier's folder,
    a missing one or a broken one: False, and the classifiers' loader names why)."""
    path = Path(folder) / CONFIG
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and config.get("kind") == KIND


def _read_config(folder: Path) -> dict:
    path = folder / CONFIG
    config = read_header(folder, ("model", "options", "vocab_size", "tgt_vocab_size",
                                  "preprocessing"))
    if config["model"] != "rnn_seq2seq" or config.get("kind") != KIND:
        raise _fail(path, f"model {config['model']!r} is not a seq2seq model this "
                    "lamalib reads (rnn_seq2seq)", _RESAVE)
    return config


def _read_vocab(folder: Path, name: str, size: int) -> PairVocab:
    path = folder / name
    if not path.is_file():
        raise _fail(path, "missing", _RESAVE)
    itos = path.read_text(encoding="utf-8").split("\n")
    if itos and itos[-1] == "":
        itos.pop()
    if len(itos) != size:
        raise _fail(path, f"holds {len(itos)} tokens but {CONFIG} says {size}",
                    _RESAVE)
    try:
        return PairVocab(itos)
    except ValueError as error:
        raise _fail(path, str(error), _RESAVE) from None


class SavedSeq2Seq:
    """A seq2seq model read back by :func:`load_seq2seq`."""

    def __init__(self, model, src_vocab: PairVocab, tgt_vocab: PairVocab,
                 config: dict) -> None:
        self.model, self.src_vocab, self.tgt_vocab = model.eval(), src_vocab, tgt_vocab
        self.config = config
        self.decoder: str = config["options"].get("decoder", "bahdanau")
        self.name = f"rnn_seq2seq ({self.decoder})"
        self.max_len: int | None = config["preprocessing"].get("max_len")

    def encode(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor,
                                                    list[list[str]]]:
        """``src (B, S)``, ``mask (B, S)`` and the source tokens of raw ``texts``."""
        if isinstance(texts, str):
            raise TypeError("give a list of sentences, e.g. translate([sentence])")
        tokens = []
        for i, text in enumerate(texts):
            try:
                tokens.append(tokenize(text))
            except ValueError:
                raise ValueError(f"sentence {i + 1} ({text!r}) has no tokens: give at "
                                 "least one word") from None
        src, mask = pad_sequences([self.src_vocab.encode(t) for t in tokens],
                                  self.src_vocab.pad_id)
        return src, mask, tokens

    def _limit(self, tokens: list[list[str]], max_len: int | None) -> int:
        longest = max(len(t) for t in tokens)
        return max_len or max(self.max_len or 0, 2 * longest + 5)

    @torch.no_grad()
    def translate(self, texts: Sequence[str], beam_width: int = 1,
                  max_len: int | None = None) -> list[Translation]:
        """Each sentence's output (greedy for ``beam_width`` 1, else beam search),
        at most ``max_len`` tokens (default: twice the source and 5, or the run's)."""
        src, mask, tokens = self.encode(texts)
        out = decode(self.model, src, mask, beam_width, self._limit(tokens, max_len))
        return [Translation(self.tgt_vocab.decode(row.tolist())) for row in out]

    @torch.no_grad()
    def attention(self, text: str, beam_width: int = 1,
                  max_len: int | None = None) -> CrossAttention:
        """The cross-attention while the model writes its output for ``text``: the
        output is decoded, then read again with teacher forcing to collect the
        weights of each of its tokens."""
        src, mask, tokens = self.encode([text])
        out = decode(self.model, src, mask, beam_width, self._limit(tokens, max_len))
        ids = self.tgt_vocab.encode(self.tgt_vocab.decode(out[0].tolist()))
        tgt_in = torch.tensor([[BOS_ID, *ids]])  # (1, T)
        _, weights = self.model(src, mask, tgt_in)  # (1, T, S) or None
        target = [self.tgt_vocab.itos[i] for i in ids] + [self.tgt_vocab.itos[EOS_ID]]
        return CrossAttention(tokens[0], target,
                              None if weights is None else weights[0].float())


def load_seq2seq(folder: str | Path, device: str | torch.device = "cpu"
                 ) -> SavedSeq2Seq:
    """Read a folder written by :func:`save_seq2seq`."""
    folder = Path(folder)
    config = _read_config(folder)  # the folder, its model.json (read_header)
    src_vocab = _read_vocab(folder, SRC_VOCAB, config["vocab_size"])
    tgt_vocab = _read_vocab(folder, TGT_VOCAB, config["tgt_vocab_size"])
    state = _read_weights(folder)
    try:
        model = build_model("rnn_seq2seq", vocab_size=len(src_vocab),
                            tgt_vocab_size=len(tgt_vocab), **config["options"])
    except (TypeError, ValueError, KeyError) as error:
        raise _fail(folder / CONFIG, f"cannot build the model from its options "
                    f"({error})", _RESAVE) from None
    try:
        model.load_state_dict(state)
    except RuntimeError as error:
        why = " ".join(str(error).split())[:200]
        raise _fail(folder / WEIGHTS, f"does not fit {CONFIG} ({why})",
                    "the files come from different saves: " + _RESAVE) from None
    return SavedSeq2Seq(model.to(device), src_vocab, tgt_vocab, config)


__all__ = ["CrossAttention", "SavedModelError", "SavedSeq2Seq", "Translation",
           "is_seq2seq_folder", "load_seq2seq", "save_seq2seq"]
