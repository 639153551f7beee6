"""Tokenization: text -> list of lowercase tokens (chapter "Setup and a first
model")."""

from __future__ import annotations

import re
import unicodedata

# Words (with inner apostrophes, hyphens or underscores), numbers, or any single
# non-space symbol. "_" joins the syllables of a segmented Vietnamese word
# ("giảng_viên": lamalib.data.vietnamese), which stays one token.
_TOKEN = re.compile(r"[^\W_]+(?:['’_-][^\W_]+)*|\S", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lowercase tokens; punctuation marks become tokens of their
    own. Text is first brought to Unicode NFC, so that "đá" typed as one letter plus
    a combining accent (NFD, as macOS writes files) gives the same token.

    Raises:
        ValueError: if ``text`` is empty or only white space (there is nothing to
        encode).
    """
    if not isinstance(text, str):
        raise TypeError(f"tokenize expects a str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(
            "Cannot tokenize an empty text: give at least one word "
            "(drop empty lines from your data first)."
        )
    # Combining accents are not word characters for the regex: compose them first.
    return _TOKEN.findall(unicodedata.normalize("NFC", text.lower()))
