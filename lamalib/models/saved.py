"""A trained classifier kept as a folder, and asked about raw text (issue 26).

``save_model(model, vocab, labels, folder, name=, options=, max_len=)`` writes

- ``model.json``: the registered model name and its options, the label names, the
  preprocessing (tokenizer, lowercasing, maximum length), the format version and the
  lamalib version that wrote it;
- ``weights.safetensors``: the model's ``state_dict`` in the safetensors format
  (tensors only: loading never runs code; a folder saved before it holds
  ``weights.pt``, still read, with ``torch.load(..., weights_only=True)``);
- ``vocab.txt``: the vocabulary, one token per line in id order; or, for a BERT that
  reads WordPiece ids (a pretrained one, ``lamalib.models.bert.BertTokens``),
  ``tokenizer/``: the tokenizer's own files, loaded offline. The BERT's architecture
  is kept as its sizes, so loading never needs the hub.

A sentence-pair classifier (``pair``: a shared sentence encoder and an MLP, the SNLI
model) is kept the same way; its ``predict`` takes ``(premise, hypothesis)`` pairs
and its ``attention(text)`` is the shared encoder's over one sentence.

``load_model(folder)`` gives a :class:`SavedModel`: ``predict(texts)`` returns one
:class:`Prediction` (label, probability) per text and ``attention(text)`` one
:class:`Attention` read the same way for every model family:

- ``kind="self"`` (``te``, ``self_attention``, ``ms_transformer``, ``transformer``,
  ``bert``):
  ``weights`` is ``(L, H, T, T)``: layer, head, query token, key token. The
  MS-Transformer's (and its matched Transformer's) ``[CLS]`` node is kept as the first position (``tokens[0] ==
  "[CLS]"``), so every row still sums to 1.
- ``kind="pooling"`` (the LAMA family and ``le``: heads; ``san``: hops): ``weights``
  is ``(H, T)``: one distribution over the tokens per head or hop.

A text is read up to :attr:`SavedModel.limit` tokens (the run's ``max_len``, else
``LONG_TEXT_LIMIT``, and never more than a learned position table holds); a longer
one is cut to it with one :class:`~lamalib.data.batching.LongTextWarning`.

Each row sums to 1 over the tokens shown. Models without attention (``avg``,
``bow_mlp``, ``cnn``, ``bigru_max``) raise :class:`NoAttention`. Every problem with a
folder raises :class:`SavedModelError`, one line naming the file and what to do.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import torch

from lamalib.data.batching import LONG_TEXT_LIMIT, LongTextWarning, pad_sequences
from lamalib.data.vietnamese import MissingSegmenter, segment, segmenter_package
from lamalib.data.vocab import CLS, Vocab
from lamalib.models.bert import BertTokens
from lamalib.models.registry import (UNRECORDED_OPTIONS, available_models, build_model,
                                     model_kind)
from lamalib.nn.self_attention.collect import NoAttentionWeights, collect_attention
from lamalib.nn.transformer.positional import LearnedPositionalEmbedding
from lamalib.provenance import lamalib_version

FORMAT = "lamalib-saved-model"
FORMAT_VERSION = 1
CONFIG, WEIGHTS, VOCAB = "model.json", "weights.safetensors", "vocab.txt"
LEGACY_WEIGHTS = "weights.pt"  # what lamalib wrote before safetensors; still read
TOKENIZER = "lamalib.data.tokenize"  # lowercase, NFC, punctuation as tokens
WORDPIECE, WORDPIECE_FILES = "wordpiece", "tokenizer"  # a BERT's tokenizer, its folder


class SavedModelError(ValueError):
    """A saved-model folder that cannot be read (missing or tampered file, another
    format version, unknown model); the message names the file and what to do."""


class NoAttention(ValueError):
    """The model computes no attention weights (e.g. ``avg``, ``cnn``)."""


@dataclass
class Prediction:
    """The most probable label of a text and its probability."""

    label: str
    probability: float


@dataclass
class Attention:
    """Attention weights of one text. ``kind`` is ``"self"`` (``weights`` ``(L, H,
    T, T)``) or ``"pooling"`` (``weights`` ``(H, T)``); ``tokens`` are the T
    positions shown (with ``"[CLS]"`` first for the MS-Transformer)."""

    tokens: list[str]
    weights: torch.Tensor
    kind: str


def _plain(value):
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, Path):
        return str(value)
    return value


def _kept_options(options: dict | None) -> dict:
    """The options a folder keeps: those the data sets (vocabulary size, classes,
    word vectors) are left out, also inside a pair model's ``encoder_options``."""
    kept = {k: v for k, v in (options or {}).items() if k not in UNRECORDED_OPTIONS}
    if isinstance(kept.get("encoder_options"), dict):
        kept["encoder_options"] = _kept_options(kept["encoder_options"])
    return _plain(kept)


# A field a BertConfig may lack, and what its absence means: transformers 5 dropped
# position_embedding_type (it has only absolute positions), while a pretrained
# model's config.json still says "absolute".
BERT_DEFAULTS = {"position_embedding_type": "absolute"}


def _bert_sizes(model: torch.nn.Module) -> dict:
    """The options that rebuild a (pretrained) BERT's architecture offline: a random
    BERT of its sizes, into which the saved weights are loaded."""
    from transformers import BertConfig

    config, standard = model.net.config, BertConfig()
    odd = [k for k in ("type_vocab_size", "hidden_act", "layer_norm_eps",
                       "position_embedding_type", "classifier_dropout")
           if getattr(config, k, BERT_DEFAULTS.get(k))
           != getattr(standard, k, BERT_DEFAULTS.get(k))]
    if odd:
        raise ValueError(f"save_model keeps a BERT of the standard architecture; this "
                         f"one differs from BertConfig's in {', '.join(odd)}")
    return {"pretrained_name": None, "hidden": config.hidden_size,
            "layers": config.num_hidden_layers, "heads": config.num_attention_heads,
            "intermediate": config.intermediate_size,
            "max_positions": config.max_position_embeddings,
            "dropout": config.hidden_dropout_prob, "pad_id": config.pad_token_id}


def save_model(model: torch.nn.Module, vocab: Vocab | BertTokens, labels: Sequence[str],
               folder: str | Path, *, name: str, options: dict | None = None,
               max_len: int | None = None, lowercase: bool = True,
               input_format: dict | None = None, overwrite: bool = False,
               tokenizer: str = "plain") -> Path:
    """Write ``model`` (registered as ``name``, built with ``options``) with its
    vocabulary and label names into ``folder`` (made if missing); returns it.

    Args:
        vocab: our :class:`Vocab`, or a BERT's WordPiece ids
            (:class:`~lamalib.models.bert.BertTokens`, with ``name="bert"``).
        labels: the class names in id order (``dataset.label_names``).
        name: a classifier's name, or ``"pair"`` for a sentence-pair classifier.
        options: the options ``build_model(name, ...)`` was given (``vocab_size``,
            ``num_classes`` and ``pretrained`` are left out: the weights hold them;
            a pair model's are ``encoder``, ``encoder_options``, ``hidden``,
            ``dropout``). A WordPiece BERT keeps its sizes instead.
        max_len: the run's truncation (None: texts were kept whole).
        lowercase: recorded; lamalib's tokenizer always lowercases.
        input_format: how the training files were read (``load_splits``' options:
            ``text_col``, ``label_col``, ``header``, ``encoding``, ...), kept as
            ``"input"`` in model.json: ``evaluate`` and ``predict`` read a file the
            same way unless told otherwise.
        overwrite: replace a model already saved in ``folder`` (otherwise a folder
            that holds anything is refused: one save never destroys another).

    The files are written into a temporary folder beside ``folder``, which is then
    renamed to it: a failed save (a full disk, say) leaves nothing half-written, and a
    replaced model is removed only once the new one is complete. A failure to write is
    a :class:`SavedModelError` saying so.
        tokenizer: the run's word segmentation (``lamalib.data.vietnamese``), applied
            again to every text the saved model reads.
    """
    wordpiece = isinstance(vocab, BertTokens)
    if not wordpiece and not isinstance(vocab, Vocab):
        raise TypeError(f"save_model keeps a lamalib Vocab or a BERT's WordPiece ids "
                        f"(BertTokens), not {type(vocab).__name__}")
    kind = model_kind(name)
    if kind not in ("classifier", "pair"):
        raise ValueError(f"save_model keeps classifiers of a text or of a pair; "
                         f"{name!r} is a {kind} model")
    if wordpiece and name != "bert":
        raise ValueError(f"WordPiece ids (BertTokens) go with the bert model, not "
                         f"{name!r}")
    if not lowercase and not wordpiece:
        raise ValueError("lamalib's tokenizer always lowercases: lowercase=False "
                         "cannot be kept")
    labels = [str(label) for label in labels]
    options = _bert_sizes(model) if wordpiece else _kept_options(options)
    json.dumps(options)  # fail here, before writing, on an option JSON cannot keep
    config = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "lamalib": lamalib_version(),
        "model": name, "kind": kind, "options": options,
        "vocab_size": len(vocab), "labels": labels,
        **({"input": _plain(input_format)} if input_format else {}),
    }
    return write_atomically(
        folder, lambda tmp: _write_model(model, vocab, tmp, wordpiece, config,
                                         max_len, tokenizer),
        overwrite, "save_model")


def write_atomically(folder: str | Path, write, overwrite: bool = False,
                     api: str = "save_model") -> Path:
    """Make saved-model folder ``folder`` by ``write(tmp)``: every file is written
    into a temporary folder beside it (same parent: the rename never crosses a
    filesystem), which is then renamed to ``folder``. A failure (a full disk, say)
    leaves nothing half-written and an existing model untouched; a replaced model is
    removed only once the new one is complete. A folder that holds anything is
    refused unless ``overwrite`` (``api``: the function to name in the message).
    Every failure is a one-line :class:`SavedModelError`; returns ``folder``."""
    folder = Path(folder)
    taken = folder.exists() and (not folder.is_dir() or any(folder.iterdir()))
    if taken and not overwrite:
        raise SavedModelError(f"{folder}: already holds "
                              + ("a saved model" if (folder / CONFIG).is_file()
                                 else "files") + "; give another folder, or replace "
                              f"it with --force ({api}(..., overwrite=True))")
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".saving",
                                    dir=folder.parent))
    except OSError as error:
        raise SavedModelError(f"{folder}: cannot save the model ({error.strerror}); "
                              "nothing was written there") from None
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)  # as a folder made by mkdir (mkdtemp's is private)
    try:
        write(tmp)
        if folder.exists():  # an empty folder, or a model to replace
            old = folder.parent / f"{tmp.name}.old"
            folder.rename(old)
            tmp.rename(folder)
            shutil.rmtree(old)
        else:
            tmp.rename(folder)
    except _write_errors() as error:  # torch.save says a full disk as a RuntimeError
        shutil.rmtree(tmp, ignore_errors=True)
        why = (error.strerror if isinstance(error, OSError) and error.strerror
               else " ".join(str(error).split())[:200])
        raise SavedModelError(f"{folder}: cannot save the model ({why}); nothing was "
                              "written there") from None
    return folder


def _write_errors() -> tuple[type[Exception], ...]:
    """What a failed write raises: ``OSError``, torch's ``RuntimeError`` and
    safetensors' own ``SafetensorError`` (a full disk while it writes the weights)."""
    try:
        from safetensors import SafetensorError
    except ImportError:
        return OSError, RuntimeError
    return OSError, RuntimeError, SafetensorError


def _write_model(model, vocab, folder: Path, wordpiece: bool, config: dict,
                 max_len: int | None, tokenizer: str = "plain") -> None:
    """Every file of a saved model, into ``folder`` (a fresh temporary one)."""
    from safetensors.torch import save_file

    state = {k: v.detach().cpu().clone().contiguous()
             for k, v in model.state_dict().items()}
    save_file(state, str(folder / WEIGHTS), metadata={"format": "pt"})
    if wordpiece:  # the tokenizer's own files: vocab.txt, tokenizer.json, ...
        vocab.tokenizer.save_pretrained(folder / WORDPIECE_FILES)
        lower = getattr(vocab.tokenizer, "do_lower_case", None)
        preprocessing = {"tokenizer": WORDPIECE, "files": WORDPIECE_FILES,
                         "lowercase": lower, "max_len": max_len or vocab.max_length}
    else:
        (folder / VOCAB).write_text("".join(tok + "\n" for tok in vocab.itos),
                                    encoding="utf-8")
        preprocessing = {"tokenizer": TOKENIZER, "lowercase": True, "max_len": max_len,
                         **({"segmenter": tokenizer} if tokenizer != "plain" else {})}
    config = {**config, "preprocessing": preprocessing}
    config = {k: config[k] for k in ("format", "format_version", "lamalib", "model",
                                      "kind", "options", "vocab_size", "labels",
                                      "preprocessing", "input") if k in config}
    (folder / CONFIG).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def _fail(path: Path, what: str, todo: str) -> SavedModelError:
    return SavedModelError(f"{path}: {what}; {todo}")


_RESAVE = "save the model again (save_model or `run ... --save-model DIR`)"


def read_header(folder: Path, required: Sequence[str]) -> dict:
    """A saved folder's ``model.json``, checked as far as every kind of saved model
    shares it (the folder, the file, JSON, the format and its version, ``required``
    keys); a failure is a one-line :class:`SavedModelError` naming the file."""
    path = folder / CONFIG
    if folder.exists() and not folder.is_dir():
        raise _fail(folder, "a file, not a folder", "give the folder a model was saved "
                    "to (the one --save-model wrote)")
    if not folder.is_dir():
        raise _fail(folder, "no such folder", "give the folder a model was saved to")
    if not path.is_file():
        raise _fail(path, "missing: the folder holds no saved model", _RESAVE)
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise _fail(path, f"not valid JSON ({error})", _RESAVE) from None
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise _fail(path, f"not a lamalib saved model (no \"format\": \"{FORMAT}\")",
                    _RESAVE)
    version = config.get("format_version")
    if version != FORMAT_VERSION:
        raise _fail(path, f"format version {version!r}, this lamalib "
                    f"({lamalib_version()}) "
                    f"reads version {FORMAT_VERSION}",
                    f"load it with the lamalib that wrote it "
                    f"({config.get('lamalib', 'unknown')}) or save it again")
    missing = [k for k in required if k not in config]
    if missing:
        raise _fail(path, f"lacks {', '.join(missing)}", _RESAVE)
    return config


def _read_config(folder: Path) -> dict:
    path = folder / CONFIG
    config = read_header(folder, ("model", "options", "vocab_size", "labels",
                                  "preprocessing"))
    known = available_models(kind="classifier") + available_models(kind="pair")
    if config["model"] not in known:
        raise _fail(path, f"unknown model {config['model']!r} (this lamalib has "
                    f"{', '.join(known)})",
                    f"use the lamalib that wrote it ({config.get('lamalib')}) or "
                    "save it again")
    prep = config["preprocessing"]
    if prep.get("tokenizer") not in (TOKENIZER, WORDPIECE):
        raise _fail(path, f"unknown tokenizer {prep.get('tokenizer')!r}",
                    f"this lamalib reads {TOKENIZER!r} and {WORDPIECE!r}")
    try:  # the run's word segmenter reads every text: it must be here
        segmenter_package(prep.get("segmenter", "plain"))
    except (ValueError, MissingSegmenter) as error:
        raise _fail(path, "the model reads segmented words", str(error)) from None
    return config


def _read_wordpiece(folder: Path, config: dict) -> BertTokens:
    """A BERT's tokenizer from its files in the folder, offline."""
    prep = config["preprocessing"]
    path = folder / str(prep.get("files", WORDPIECE_FILES))
    if not path.is_dir():
        raise _fail(path, "missing: the BERT's tokenizer files", _RESAVE)
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise _fail(folder / CONFIG, "a BERT model needs the transformers package",
                    "pip install transformers") from None
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    except (OSError, ValueError) as error:
        first = (str(error).strip().splitlines() or [""])[0]
        raise _fail(path, f"not a readable tokenizer ({first})", _RESAVE) from None
    tokens = BertTokens(tokenizer, max_length=prep.get("max_len") or 512)
    if len(tokens) != config["vocab_size"]:
        raise _fail(path, f"holds {len(tokens)} tokens but {CONFIG} says "
                    f"{config['vocab_size']}", _RESAVE)
    return tokens


def _read_vocab(folder: Path, config: dict) -> Vocab | BertTokens:
    if config["preprocessing"].get("tokenizer") == WORDPIECE:
        return _read_wordpiece(folder, config)
    path = folder / VOCAB
    if not path.is_file():
        raise _fail(path, "missing", _RESAVE)
    itos = path.read_text(encoding="utf-8").split("\n")
    if itos and itos[-1] == "":
        itos.pop()  # the last line's newline
    if len(itos) != config["vocab_size"]:
        raise _fail(path, f"holds {len(itos)} tokens but {CONFIG} says "
                    f"{config['vocab_size']}", _RESAVE)
    try:
        return Vocab(itos)
    except ValueError as error:
        raise _fail(path, str(error), _RESAVE) from None


def _read_weights(folder: Path) -> dict:
    """The state_dict in ``weights.safetensors`` (or, in a folder saved before it,
    ``weights.pt``, read with ``weights_only``: never pickled code); any file that
    cannot be read as one is a one-line :class:`SavedModelError` naming it."""
    path = folder / WEIGHTS
    if not path.is_file() and (folder / LEGACY_WEIGHTS).is_file():
        return _read_legacy_weights(folder / LEGACY_WEIGHTS)
    if not path.is_file():
        raise _fail(path, "missing", _RESAVE)
    from safetensors.torch import load_file

    try:
        return load_file(str(path), device="cpu")
    except Exception as error:  # SafetensorError and its kin: the file is not one
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise _fail(path, f"unreadable ({first[:200]})", _RESAVE) from None


def _read_legacy_weights(path: Path) -> dict:
    try:
        # weights_only: tensors and plain containers only, never pickled code
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # torch's text advises unsafe loading: never here
        raise _fail(path, "refused: not a file of plain tensors, so it is not read (it "
                    "could run code)", "never load weights from an untrusted source; "
                    + _RESAVE) from None
    except Exception as error:  # random bytes, a text file: torch's many errors
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise _fail(path, f"unreadable ({type(error).__name__}: {first[:200]})",
                    _RESAVE) from None
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise _fail(path, "not a state_dict of named tensors", _RESAVE)
    return state


PAIR_HINT = ("give (premise, hypothesis) pairs, e.g. "
             "predict([(\"a man sleeps\", \"a person rests\")])")


class SavedModel:
    """A classifier read back by :func:`load_model`, with its vocabulary, label names
    and preprocessing: ``predict(texts)``, ``attention(text)``, ``logits(texts)``.
    A sentence-pair model (``pairs`` is True) takes ``(premise, hypothesis)`` pairs
    where another takes texts."""

    def __init__(self, model: torch.nn.Module, vocab: Vocab | BertTokens,
                 labels: list[str], config: dict, folder: Path | None = None) -> None:
        self.model, self.vocab, self.labels = model.eval(), vocab, labels
        self.config, self.folder = config, folder
        self.name: str = config["model"]
        self.pairs: bool = model_kind(self.name) == "pair"
        self.max_len: int | None = config["preprocessing"].get("max_len")
        self.limit, self._why = self._limit()
        self.cut_count = 0  # texts cut to ``limit`` so far (predict says it once)

    def _limit(self) -> tuple[int, str]:
        """The most tokens a text is read with, and why: the run's ``max_len`` (else
        ``LONG_TEXT_LIMIT``), at most the rows of a learned position table."""
        limit, why = ((self.max_len, "the model's max_len") if self.max_len else
                      (LONG_TEXT_LIMIT, "the limit of a model saved without max_len"))
        for module in self.model.modules():
            if (isinstance(module, LearnedPositionalEmbedding)
                    and module.max_len < limit):
                limit, why = module.max_len, "the model's learned positions"
        return limit, why

    def __repr__(self) -> str:
        name = (f"pair of {self.config['options'].get('encoder')}" if self.pairs
                else self.name)
        return (f"SavedModel({name!r}, {len(self.labels)} labels, vocab "
                f"{len(self.vocab)}, max_len {self.max_len})")

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def encode(self, texts: Sequence[str], what: str = "text",
               max_len: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Token ids and mask of raw ``texts`` as the run made them, ``(B, T)``, each
        cut to :attr:`limit` tokens (or to ``max_len`` where that is fewer), with one
        warning naming how many were longer."""
        if isinstance(texts, str):
            raise TypeError("give a list of texts, e.g. predict([text])")
        limit, why = self.limit, self._why
        if max_len is not None and max_len < limit:
            limit, why = max_len, f"max_len={max_len}"
        ids, cut = [], 0
        segmenter = self.config["preprocessing"].get("segmenter", "plain")
        for i, text in enumerate(texts):
            if isinstance(text, str):  # the run's words, e.g. "giảng_viên"
                text = segment(text, segmenter)
            if not isinstance(text, str):
                raise TypeError(f"{what} {i + 1} is a {type(text).__name__}, not a "
                                "text" + ("" if self.pairs else
                                          f"; model {self.name!r} reads one text"))
            try:
                row = self.vocab.encode(text)
            except ValueError:
                raise ValueError(f"{what} {i + 1} ({text!r}) has no tokens: give "
                                 "at least one word") from None
            cut += len(row) > limit
            ids.append(row[:limit])
        self.cut_count += cut
        if cut:
            warnings.warn(f"{cut} {what}{'s' * (cut != 1)} longer than {limit} tokens "
                          f"{'were' if cut != 1 else 'was'} cut to {limit} ({why})",
                          LongTextWarning, stacklevel=2)
        tokens, mask = pad_sequences(ids, self.vocab.pad_id)
        return tokens.to(self.device), mask.to(self.device)

    def _sides(self, pairs) -> tuple[list[str], list[str]]:
        if isinstance(pairs, (str, tuple)) or any(
                isinstance(p, str) or len(p) != 2 for p in pairs):
            raise TypeError(f"model {self.name!r} classifies sentence pairs: "
                            + PAIR_HINT)
        return [p[0] for p in pairs], [p[1] for p in pairs]

    @torch.no_grad()
    def logits(self, texts: Sequence, max_len: int | None = None) -> torch.Tensor:
        """``(B, C)`` logits of raw ``texts`` (of ``(premise, hypothesis)`` pairs for
        a pair model); ``max_len`` as in :meth:`encode`."""
        if self.pairs:
            first, second = self._sides(texts)
            return self.model(*self.encode(first, "premise", max_len),
                              *self.encode(second, "hypothesis", max_len))
        return self.model(*self.encode(texts, max_len=max_len))

    def known_share(self, texts: Sequence[str]) -> list[float]:
        """Per text, the share of its tokens (special tokens aside) that the model's
        vocabulary knows: 0 means every token is unknown to it, so its prediction says
        nothing about the text."""
        tokenizer = getattr(self.vocab, "tokenizer", None)  # a BERT's WordPiece ids
        unk = tokenizer.unk_token_id if tokenizer is not None else self.vocab.unk_id
        special = (set(tokenizer.all_special_ids) - {unk} if tokenizer is not None
                   else {self.vocab.pad_id, self.vocab.cls_id} - {None})
        shares = []
        for text in texts:
            try:
                ids = [i for i in self.vocab.encode(text) if i not in special]
            except ValueError:  # no tokens at all
                ids = []
            shares.append(sum(i != unk for i in ids) / len(ids) if ids else 0.0)
        return shares

    def predict(self, texts: Sequence, max_len: int | None = None
                ) -> list[Prediction]:
        """The most probable label of each text (or pair) and its probability;
        ``max_len`` as in :meth:`encode`."""
        return [ranked[0] for ranked in self.top_k(texts, 1, max_len)]

    def top_k(self, texts: Sequence, k: int, max_len: int | None = None
              ) -> list[list[Prediction]]:
        """The ``k`` most probable labels of each text (or pair), most probable
        first, with their probabilities; ``max_len`` as in :meth:`encode`."""
        if not 1 <= k <= len(self.labels):
            raise ValueError(f"k={k}: model {self.name!r} has {len(self.labels)} "
                             f"labels; give k from 1 to {len(self.labels)}")
        probs = self.logits(texts, max_len).float().softmax(-1)  # (B, C)
        best, index = probs.topk(k, dim=-1)  # (B, k)
        return [[Prediction(self.labels[int(i)], float(p)) for p, i in zip(ps, ids)]
                for ps, ids in zip(best, index)]

    @torch.no_grad()
    def attention(self, text: str, max_len: int | None = None) -> Attention:
        """The attention weights of one text (see the module docstring for shapes);
        for a pair model, the shared sentence encoder's over one sentence.
        ``max_len``: read at most this many tokens (fewer than :attr:`limit`: a
        self-attention's weights grow with the square of the length)."""
        tokens, mask = self.encode([text], max_len=max_len)  # (1, T)
        shown = self.vocab.decode(tokens[0].tolist())
        if self.pairs:
            encoder = self.model.encoder
            return _attention(encoder, self.model.encoder_name, tokens, mask, shown,
                              lambda: encoder.represent(tokens, mask))
        return _attention(self.model, self.name, tokens, mask, shown)


def _attention(model, name: str, tokens, mask, shown: list[str],
               run=None) -> Attention:
    """``run()`` (default: the model's forward) once, reading its weights."""
    from lamalib.models.ms_transformer import MSTransformerClassifier

    run = run or (lambda: model(tokens, mask))
    if isinstance(model, MSTransformerClassifier):
        model.encode(tokens, mask, need_weights=True)
        weights = torch.stack(model.attention_weights())  # (L, 1, H, 1 + T, 1 + T)
        return Attention([CLS] + shown, weights[:, 0].float().cpu(), "self")
    if "last_weights" in dir(type(model)):  # LAMA family, SAN: (1, H, T) pooling
        run()
        return Attention(shown, model.last_weights[0].float().cpu(), "pooling")
    if name == "bert":
        # fused (sdpa) attention returns no weights: the eager path, for this call
        before = model.net.config._attn_implementation
        model.net.set_attn_implementation("eager")
        try:
            out = model.bert(input_ids=tokens, attention_mask=mask.long(),
                             output_attentions=True)
        finally:
            model.net.set_attn_implementation(before)
        weights = torch.stack(out.attentions)  # (L, 1, H, T, T)
        return Attention(shown, weights[:, 0].float().cpu(), "self")
    try:
        weights = collect_attention(model, run)
    except NoAttentionWeights:  # an error inside the model is not this: it is raised
        raise NoAttention(f"model {name!r} has no attention weights to show; the "
                          "models with attention: te, self_attention, "
                          "ms_transformer, transformer, bert, san, lama, lama_ctx, "
                          "lama_ctx_de, lama_ctx_dp, le") from None
    return Attention(shown, weights[:, 0].float().cpu(), "self")  # (L, H, T, T)


def load_model(folder: str | Path, device: str | torch.device = "cpu") -> SavedModel:
    """Read a folder written by :func:`save_model`; raises :class:`SavedModelError`
    naming the file when one is missing or does not fit the others."""
    folder = Path(folder)
    config = _read_config(folder)
    vocab = _read_vocab(folder, config)
    labels = [str(x) for x in config["labels"]]
    state = _read_weights(folder)
    name, options = config["model"], dict(config["options"])
    try:
        model = build_model(name, vocab_size=len(vocab), num_classes=len(labels),
                            **options)
    except (TypeError, ValueError, KeyError) as error:
        raise _fail(folder / CONFIG, f"cannot build model {name!r} from its options "
                    f"({error})", _RESAVE) from None
    try:
        model.load_state_dict(state)
    except RuntimeError as error:
        detail = " ".join(str(error).split())
        used = WEIGHTS if (folder / WEIGHTS).is_file() else LEGACY_WEIGHTS
        raise _fail(folder / used, f"does not fit {CONFIG}'s model {name!r} "
                    f"({detail})", "the files come from different saves: "
                    + _RESAVE) from None
    return SavedModel(model.to(device), vocab, labels, config, folder)


__all__ = ["Attention", "NoAttention", "Prediction", "SavedModel", "SavedModelError",
           "load_model", "save_model", "write_atomically"]
