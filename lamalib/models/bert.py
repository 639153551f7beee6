"""BERT: a fine-tuned pretrained Transformer, the LAMA paper's largest baseline
(chapter "LAMA"; Devlin et al. 2019, through Hugging Face ``transformers``).

The LAMA paper (section 4.2) fine-tunes ``bert-base-uncased`` (12 layers, width 768,
12 heads, 110M parameters) for 2 epochs with Adam at learning rate 5e-6:
:data:`BERT_RECIPE`.

Two ways to build it:

* ``pretrained_name="bert-base-uncased"`` (the default) loads the weights from the
  Hugging Face hub, or from its local cache. The model then reads WordPiece ids, not
  the ids of our :class:`~lamalib.data.Vocab`: make them with :func:`bert_vocab`
  (a :class:`BertTokens`, which the data pipeline uses like a ``Vocab``).
* ``pretrained_name=None`` builds a randomly initialised BERT of the sizes given
  (``hidden``, ``layers``, ``heads``, ``intermediate``) over our own Vocab's ids,
  ``vocab_size = len(vocab)``. It needs no network: the tests train a tiny one.

Offline, loading a pretrained model fails fast (a cache lookup, then one TCP
connection attempt of ``timeout`` seconds, instead of ``transformers``' minute of
retries) with :class:`PretrainedUnavailable`, whose message names the offline
alternative, the random config. ``transformers`` is imported only when a BERT is built,
so ``import lamalib`` stays fast.
"""

from __future__ import annotations

import os
import socket
from typing import Callable, Sequence
from urllib.parse import urlparse
from urllib.request import getproxies

import torch
from torch import nn

from lamalib.data.tokenize import tokenize
from lamalib.data.vocab import Vocab
from lamalib.models.bert_recipe import (BERT_RECIPE, DEFAULT_NAME,  # noqa: F401
                                        PretrainedUnavailable)  # (re-exported)
from lamalib.models.hf_copies import checked_copy
from lamalib.models.registry import register_model

# BERT-base's sizes (Devlin et al. 2019): a random model without sizes gets these.
BASE_SIZES = {"hidden": 768, "layers": 12, "heads": 12, "intermediate": 3072,
              "max_positions": 512}

OFFLINE_HINT = ("Offline, build a randomly initialised BERT over your own Vocab "
                "instead: build_model('bert', vocab_size=len(vocab), num_classes=C, "
                "pretrained_name=None, hidden=64, layers=2, heads=2, "
                "intermediate=128); on the experiments command line: --set "
                "pretrained_name=null --set hidden=64 --set layers=2 --set heads=2 "
                "--set intermediate=128.")


def _hub_address() -> tuple[str, int]:
    """Host and port a download would connect to first: the HTTPS proxy if one is
    set, else the hub (``HF_ENDPOINT`` or huggingface.co)."""
    proxy = getproxies().get("https")
    url = urlparse(proxy or os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    return url.hostname or "huggingface.co", url.port or (443 if url.scheme ==
                                                          "https" else 80)


def _offline_by_setting() -> bool:
    flags = (os.environ.get(v, "").strip().lower() for v in
             ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
    return any(f in ("1", "on", "yes", "true") for f in flags)


def hub_reachable(timeout: float = 5.0) -> bool:
    """Whether one TCP connection to the hub (or the HTTPS proxy) opens in time."""
    try:
        socket.create_connection(_hub_address(), timeout=timeout).close()
    except OSError:  # no route, DNS failure, refused, timed out
        return False
    return True


def load_pretrained(load: Callable, name: str, timeout: float = 5.0,
                    hint: str = OFFLINE_HINT, **kwargs):
    """``load(name, **kwargs)`` (a ``from_pretrained``) that fails fast offline.

    A name the course knows (``all-MiniLM-L6-v2``: :mod:`lamalib.models.hf_copies`)
    loads from the copy its installed package ships, SHA-256 checked, with no network.
    The local cache is tried first (``local_files_only=True``: no network); then,
    unless ``HF_HUB_OFFLINE`` is set, one connection to the hub is tried for at most
    ``timeout`` seconds before the real download. Without network this raises
    :class:`PretrainedUnavailable` within about ``timeout`` seconds, where a bare
    ``from_pretrained`` retries for about a minute; its message ends with ``hint``,
    the offline alternative (by default the random config).
    """
    copy = checked_copy(name)  # a name the course knows, from its package's copy
    if copy is not None:
        return load(str(copy), **kwargs)
    try:
        return load(name, local_files_only=True, **kwargs)
    except OSError:  # not in the cache: transformers raises OSError (EnvironmentError)
        pass
    where = f"{name!r} is not in the local Hugging Face cache"
    if _offline_by_setting():
        raise PretrainedUnavailable(f"{where} and HF_HUB_OFFLINE is set. "
                                    + hint)
    host, port = _hub_address()
    if not hub_reachable(timeout):
        raise PretrainedUnavailable(f"{where} and {host}:{port} cannot be reached "
                                    f"(no network within {timeout:g} s). "
                                    + hint)
    try:
        return load(name, **kwargs)
    except OSError as err:  # a wrong name, or the network failed midway
        raise PretrainedUnavailable(f"could not load {name!r}: {err}. "
                                    + hint) from err


class BertTokens:
    """WordPiece ids of a pretrained BERT's tokenizer, with the part of the
    :class:`~lamalib.data.Vocab` interface that the data pipeline uses (``encode``,
    ``pad_id``, ``itos``, ``len``), so ``cached_ids`` and ``BucketBatches`` take it.

    ``encode`` always returns ``[CLS] wordpieces [SEP]`` (BERT's input format; the
    classifier pools [CLS]), cut to ``max_length`` ids in all; ``add_cls`` is
    accepted for the Vocab interface and has no effect.
    """

    def __init__(self, tokenizer, max_length: int = 512) -> None:
        self.tokenizer, self.max_length = tokenizer, max_length
        self.itos = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))

    @classmethod
    def from_pretrained(cls, name: str = DEFAULT_NAME, max_length: int = 512,
                        timeout: float = 5.0) -> "BertTokens":
        """The tokenizer of ``name`` (fails fast offline: see
        :func:`load_pretrained`)."""
        from transformers import AutoTokenizer

        return cls(load_pretrained(AutoTokenizer.from_pretrained, name, timeout),
                   max_length)

    def __len__(self) -> int:
        return len(self.itos)

    @property
    def pad_id(self) -> int:
        return self.tokenizer.pad_token_id

    def encode(self, text: str, add_cls: bool = True) -> list[int]:
        """``[CLS] wordpieces [SEP]`` ids of ``text``, at most ``max_length``."""
        tokenize(text)  # the same clear error as Vocab.encode for an empty text
        return self.tokenizer(text, truncation=True, max_length=self.max_length,
                              add_special_tokens=True)["input_ids"]

    def decode(self, ids: Sequence[int]) -> list[str]:
        return [self.itos[int(i)] for i in ids]


def bert_vocab(texts: Sequence[str], pretrained_name: str | None = DEFAULT_NAME,
               min_freq: int = 1, max_length: int = 512,
               timeout: float = 5.0) -> BertTokens | Vocab:
    """The token ids a ``bert`` model reads.

    With a ``pretrained_name``: its WordPiece tokenizer (:class:`BertTokens`; online
    or from the local cache; offline it raises :class:`PretrainedUnavailable` fast).
    With ``None`` (the random BERT): our own ``Vocab.build(texts, min_freq)``; build
    the model with ``vocab_size=len(vocab)``. ``max_length`` caps WordPiece ids
    (BERT-base has 512 positions); ``texts`` are not read in the pretrained case.
    """
    if pretrained_name is None:
        return Vocab.build(texts, min_freq=min_freq)
    return BertTokens.from_pretrained(pretrained_name, max_length, timeout)


@register_model("bert")
class BertClassifier(nn.Module):
    """BERT with a linear layer on its pooled [CLS] (first-token) state
    (``transformers.BertForSequenceClassification``).

    Args:
        vocab_size: V: the tokenizer's size for a pretrained model (checked), or
            ``len(vocab)`` of our Vocab for a random one. num_classes: C.
        pretrained_name: a hub name (``"bert-base-uncased"``, the LAMA paper's), or
            None for a randomly initialised BERT of the sizes below.
        hidden, layers, heads, intermediate, max_positions: width, encoder layers,
            attention heads, feed-forward width and positions of a random BERT
            (None: BERT-base's 768, 12, 12, 3072, 512). A pretrained model has its
            own sizes: giving any of these with a ``pretrained_name`` is an error.
            (Texts are cut to ``max_positions`` tokens by the data pipeline, e.g.
            the run option ``max_len``; a longer batch is an error.)
        dropout: on hidden states, attention weights and the pooled state (BERT's
            own value is 0.1).
        pad_id: the padding id (0 in our Vocab and in BERT's WordPiece vocabulary).
        timeout: seconds to wait for the hub before failing (offline).

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``. Pads are masked in
    every attention layer and positions count from the left, so right padding never
    changes the logits. With our Vocab's ids the pooled "first token" is the first
    word, not a [CLS].
    """

    def __init__(self, vocab_size: int, num_classes: int,
                 pretrained_name: str | None = DEFAULT_NAME,
                 hidden: int | None = None, layers: int | None = None,
                 heads: int | None = None, intermediate: int | None = None,
                 max_positions: int | None = None, dropout: float = 0.1,
                 pad_id: int = 0,
                 timeout: float = 5.0) -> None:
        super().__init__()
        from transformers import BertConfig, BertForSequenceClassification

        sizes = {"hidden": hidden, "layers": layers, "heads": heads,
                 "intermediate": intermediate, "max_positions": max_positions}
        given = [k for k, v in sizes.items() if v is not None]
        drop = {"hidden_dropout_prob": dropout, "attention_probs_dropout_prob": dropout}
        if pretrained_name is not None:
            if given:
                raise ValueError(
                    f"{', '.join(given)} set with pretrained_name={pretrained_name!r}: "
                    "a pretrained BERT has its own sizes. Pass pretrained_name=None "
                    "for a random BERT of your sizes.")
            self.net = load_pretrained(BertForSequenceClassification.from_pretrained,
                                       pretrained_name, timeout,
                                       num_labels=num_classes, **drop)
            if self.net.config.vocab_size != vocab_size:
                raise ValueError(
                    f"{pretrained_name!r} reads {self.net.config.vocab_size} WordPiece "
                    f"ids, but vocab_size={vocab_size}: encode the texts with "
                    f"bert_vocab(texts, {pretrained_name!r}), not with our Vocab.")
        else:
            s = {k: BASE_SIZES[k] if v is None else v for k, v in sizes.items()}
            config = BertConfig(
                vocab_size=vocab_size, hidden_size=s["hidden"],
                num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
                intermediate_size=s["intermediate"],
                max_position_embeddings=s["max_positions"], pad_token_id=pad_id,
                num_labels=num_classes, **drop)
            self.net = BertForSequenceClassification(config)
        self.pretrained_name = pretrained_name

    @property
    def bert(self) -> nn.Module:
        """The ``transformers.BertModel`` inside (e.g. for
        ``lamalib.nn.patterns.pal``)."""
        return self.net.bert

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        positions = self.net.config.max_position_embeddings
        if tokens.shape[1] > positions:
            raise ValueError(f"{tokens.shape[1]} tokens, but this BERT has "
                             f"{positions} positions: truncate the texts (the run "
                             "option max_len).")
        out = self.net(input_ids=tokens, attention_mask=mask.long())
        return out.logits  # (B, C)

    def describe(self) -> dict:
        """Sizes and parameter count, for tables in the book."""
        c = self.net.config
        return {"pretrained_name": self.pretrained_name, "hidden": c.hidden_size,
                "layers": c.num_hidden_layers, "heads": c.num_attention_heads,
                "intermediate": c.intermediate_size,
                "params": sum(p.numel() for p in self.parameters())}
