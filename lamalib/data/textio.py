"""Reading text files: the original corpus files, whose encodings vary (UTF-8,
Windows-1252, Latin-1), and a user's own files, compressed or not (chapter "Setup")."""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
from pathlib import Path
from typing import BinaryIO

# Compressed files are read transparently, by their last suffix.
DECOMPRESS = {".gz": gzip.decompress, ".xz": lzma.decompress, ".bz2": bz2.decompress}
OPEN = {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}


def read_bytes(path: str | Path) -> bytes:
    """The content of ``path``, decompressed if it ends in .gz, .xz or .bz2."""
    path = Path(path)
    raw = path.read_bytes()
    decompress = DECOMPRESS.get(path.suffix.lower())
    if decompress is None:
        return raw
    try:
        return decompress(raw)
    except (OSError, EOFError, lzma.LZMAError) as err:
        raise ValueError(
            f"{path}: cannot decompress it as {path.suffix} ({err}); "
            "is the file complete, and is the suffix right?"
        ) from err


def open_binary(path: str | Path) -> BinaryIO:
    """``path`` opened for reading bytes, line by line if need be, decompressed on the
    fly if it ends in .gz, .xz or .bz2 (for files too large to read at once)."""
    path = Path(path)
    return OPEN.get(path.suffix.lower(), open)(path, "rb")


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The text of ``path`` (decompressed by suffix) decoded with ``encoding``.

    A UTF-8 byte-order mark (Excel's "CSV UTF-8") is dropped. Undecodable bytes are an
    error that names the file, the line and the ``encoding=`` option; nothing is
    guessed, so a text never changes silently.
    """
    raw = read_bytes(path)
    codec = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    try:
        return raw.decode(codec)
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        bad = raw[err.start : err.end]
        raise ValueError(
            f"{path}, line {line}: the bytes {bad!r} are not valid {encoding} "
            f"({err.reason}). Pass the file's encoding, e.g. encoding='cp1252' or "
            "encoding='latin-1' for a file saved by older Windows or Excel, or "
            "re-save the file as UTF-8."
        ) from err


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
