"""Vietnamese diacritic restoration pairs: text without its accents -> the text
(chapter "Attention mechanisms", section "Attention on real sentences").

Vietnamese typed without accents ("toi thich tra") is common in chats and old
systems; restoring them ("tôi thích trà") is a task Vietnamese NLP works on. Stripping
merges many syllables into one: "ma" is the stripped form of ma, má, mà, mả, mã, mạ,
and of mâ..., mơ... too. A restorer must choose from context. Every source syllable
gives exactly one target syllable in the same place, so a good alignment is the
diagonal: the counterpart of translation's reordering.
"""

from __future__ import annotations

import unicodedata
from typing import Iterable

from lamalib.data.parallel import ParallelPairs, nfc

# Letters whose base is not a combining mark: đ is a d with a bar, a letter of its own.
_OWN_LETTERS = str.maketrans({"đ": "d", "Đ": "D"})


def strip_diacritics(text: str) -> str:
    """``text`` with every diacritic removed, in NFC.

    Tone marks (sắc, huyền, hỏi, ngã, nặng) and the letter marks of ă, â, ê, ô, ơ, ư
    are combining marks in NFD and are dropped; "đ"/"Đ" (no combining form) become
    "d"/"D". So "Đường" -> "Duong", "người" -> "nguoi", "ư" -> "u". Characters
    without marks are kept as they are.
    """
    decomposed = unicodedata.normalize("NFD", text.translate(_OWN_LETTERS))
    kept = "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
    return nfc(kept)


def diacritic_pairs(sentences: Iterable[str]) -> ParallelPairs:
    """Restoration pairs (source: stripped, target: the sentence in NFC) of the
    non-blank ``sentences``, in their order; ``lines`` counts every sentence given
    from 1, so a pair names its line in the text it came from."""
    source, target, lines = [], [], []
    for n, sentence in enumerate(sentences, 1):
        sentence = nfc(sentence.strip())
        if sentence:
            source.append(strip_diacritics(sentence))
            target.append(sentence)
            lines.append(n)
    if not source:
        raise ValueError("no sentences to make diacritic-restoration pairs from")
    return ParallelPairs(source, target, lines)


__all__ = ["diacritic_pairs", "strip_diacritics"]
