"""What a pretrained tokenizer does to a text that the reader should know
(chapter "Pretraining"; the ``attention`` command): it strips accents
(all-MiniLM-L6-v2's uncased tokenizer reads Vietnamese *dở* as *do*), or it maps
most of the text to its unknown piece. :func:`reading_warnings` returns one line for
each, which :func:`lamalib.models.hf_encoder.pretrained_attention` warns with.
"""

from __future__ import annotations

import unicodedata

UNKNOWN_SHARE = 0.5  # warn when more than this share of the text's letters is unknown


def _marks(text: str) -> int:
    """Combining marks (accents, tones) in ``text``, counted after decomposition."""
    return sum(unicodedata.category(c) == "Mn" for c in unicodedata.normalize("NFD", text))


def _normalizer(tokenizer):
    backend = getattr(tokenizer, "backend_tokenizer", None)
    return getattr(backend, "normalizer", None)


def stripped_accents(tokenizer, text: str) -> tuple[int, int, str] | None:
    """``(words that lose marks, words with marks, first example "dở" -> "do")``
    when ``tokenizer``'s normalizer removes accents from ``text``; else None."""
    normalizer = _normalizer(tokenizer)
    if normalizer is None or _marks(text) == 0:
        return None
    accented = [w for w in text.split() if _marks(w)]
    lost = [(w, normalizer.normalize_str(w)) for w in accented]
    lost = [(w, n) for w, n in lost if _marks(n) < _marks(w)]
    if not lost:
        return None
    return len(lost), len(accented), f"\"{lost[0][0]}\" -> \"{lost[0][1]}\""


def unknown_share(tokenizer, text: str) -> float:
    """The share of ``text``'s non-space characters that the tokenizer reads as its
    unknown piece (by character offsets; by pieces where it gives no offsets)."""
    unk = getattr(tokenizer, "unk_token", None)
    if unk is None:
        return 0.0
    letters = sum(not c.isspace() for c in text)
    if not letters:
        return 0.0
    try:
        enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True,
                        verbose=False)
    except (NotImplementedError, TypeError, ValueError):  # a slow tokenizer
        pieces = tokenizer.tokenize(text)
        return sum(p == unk for p in pieces) / max(len(pieces), 1)
    unk_id = tokenizer.convert_tokens_to_ids(unk)
    hidden = sum(sum(not c.isspace() for c in text[a:b])
                 for i, (a, b) in zip(enc["input_ids"], enc["offset_mapping"])
                 if i == unk_id)
    return hidden / letters


def reading_warnings(tokenizer, text: str) -> list[str]:
    """One line per thing the tokenizer hides from the model: accents it strips,
    or most of the text read as the unknown piece."""
    lines = []
    accents = stripped_accents(tokenizer, text)
    if accents is not None:
        n, of, example = accents
        lines.append(f"the tokenizer strips accents ({example}; {n} of {of} accented "
                     "words): the model reads the text without them")
    share = unknown_share(tokenizer, text)
    if share > UNKNOWN_SHARE:
        lines.append(f"the tokenizer reads {share:.0%} of the text's characters as "
                     f"its unknown piece {tokenizer.unk_token}: the model sees "
                     "little of this text")
    return lines


__all__ = ["reading_warnings", "stripped_accents", "unknown_share"]
