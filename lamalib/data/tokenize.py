"""Tokenization: text -> list of lowercase tokens (chapter "Setup and a first
model")."""

from __future__ import annotations

import re

# Words (with inner apostrophes or hyphens), numbers, or any single non-space symbol.
_TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*|\S", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lowercase tokens; punctuation marks become tokens of their
    own.

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
    return _TOKEN.findall(text.lower())
