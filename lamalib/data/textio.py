"""Reading the original corpus files, whose encodings vary (UTF-8, Windows-1252,
Latin-1)."""

from __future__ import annotations

from pathlib import Path


def read_lines(path: Path) -> list[str]:
    """Non-empty lines of a text file in whichever of UTF-8 / cp1252 / Latin-1 decodes
    it.

    Only ``\\n`` ends a line: some originals contain the byte 0x85, which
    ``str.splitlines`` would take for a line break.
    """
    raw = Path(path).read_bytes()
    for encoding in ("utf-8", "cp1252"):
        try:
            content = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        content = raw.decode("latin-1")  # decodes any byte string
    return [line for line in content.split("\n") if line.strip()]
