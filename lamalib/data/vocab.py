"""A vocabulary: token <-> id, with <pad>, <unk> and an optional [CLS] (chapter
"Setup")."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from lamalib.data.tokenize import tokenize

PAD, UNK, CLS = "<pad>", "<unk>", "[CLS]"


class TokenLookup:
    """Token -> id lookups over ``itos`` / ``stoi``, unknown tokens to ``unk_id``: the
    part of the ``Vocab`` interface that :class:`Vocab` and the subword tokenizer
    (``lamalib.data.subword``) share."""

    itos: list[str]
    stoi: dict[str, int]

    def __len__(self) -> int:
        return len(self.itos)

    def __getitem__(self, token: str) -> int:
        return self.stoi.get(token, self.unk_id)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi


@dataclass
class Vocab(TokenLookup):
    """Maps tokens to ids. ``<pad>`` is always id 0 and ``<unk>`` id 1.

    Build one with :meth:`Vocab.build`; ``encode`` turns a text into ids.
    """

    itos: list[str]
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.stoi = {tok: i for i, tok in enumerate(self.itos)}
        if self.itos[:2] != [PAD, UNK]:
            raise ValueError(f"a Vocab must start with {PAD!r}, {UNK!r}")

    @classmethod
    def build(
        cls,
        texts: Iterable[str | Sequence[str]],
        min_freq: int = 1,
        max_size: int | None = None,
        cls_token: bool = False,
    ) -> "Vocab":
        """Count tokens and keep those seen at least ``min_freq`` times.

        Args:
            texts: raw strings (tokenized with :func:`tokenize`) or token lists.
            min_freq: rarer tokens map to ``<unk>``.
            max_size: keep at most this many regular tokens (most frequent first).
            cls_token: add ``[CLS]`` (id 2), the summary token of BERT-style encoders.
        """
        counter: Counter[str] = Counter()
        for text in texts:
            counter.update(tokenize(text) if isinstance(text, str) else text)
        if not counter:
            raise ValueError("Cannot build a Vocab from no text: the dataset is empty.")
        specials = [PAD, UNK] + ([CLS] if cls_token else [])
        # Most frequent first; ties broken alphabetically so the ids are reproducible.
        kept = [
            tok
            for tok, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
            if n >= min_freq and tok not in specials
        ]
        if max_size is not None:
            kept = kept[:max_size]
        return cls(specials + kept, dict(counter))

    @property
    def pad_id(self) -> int:
        return 0

    @property
    def unk_id(self) -> int:
        return 1

    @property
    def cls_id(self) -> int | None:
        return self.stoi.get(CLS)

    def encode(self, text: str | Sequence[str], add_cls: bool = False) -> list[int]:
        """Ids of a text (or of a token list); ``add_cls`` prepends ``[CLS]``."""
        tokens = tokenize(text) if isinstance(text, str) else list(text)
        if not tokens:
            raise ValueError("Cannot encode an empty text: give at least one token.")
        ids = [self[tok] for tok in tokens]
        if add_cls:
            if self.cls_id is None:
                raise ValueError(
                    "This Vocab has no [CLS]: build it with cls_token=True."
                )
            ids = [self.cls_id] + ids
        return ids

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Tokens of a list of ids (padding included, as ``<pad>``)."""
        return [self.itos[int(i)] for i in ids]
