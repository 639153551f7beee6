"""Reading text files: the original corpus files, whose encodings vary (UTF-8,
Windows-1252, Latin-1), and a user's own files, compressed or not (chapter "Setup")."""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
import warnings
from pathlib import Path
from typing import BinaryIO, Iterator

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


# Byte-order marks a file read as UTF-8 may start with, and the codec each says
# (UTF-32's first: its little-endian mark begins with UTF-16's).
BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"))


class MojibakeWarning(UserWarning):
    """A file read with a single-byte encoding whose non-ASCII lines are UTF-8: its
    letters come out garbled ("Ã©" for "é")."""


def _single_byte(codec: str) -> bool:
    """Whether ``codec`` maps every byte to one character (Latin-1, cp1252, ...)."""
    try:
        return len(bytes(range(256)).decode(codec, errors="replace")) == 256
    except LookupError:
        return False


def _utf8_line(raw: bytes) -> tuple[int, bytes] | None:
    """The first line of ``raw`` that is UTF-8 beyond ASCII, if any, with its number."""
    for number, line in enumerate(raw.split(b"\n"), 1):
        if not line.isascii():
            try:
                line.decode("utf-8")
                return number, line
            except UnicodeDecodeError:
                continue
    return None


def utf16_without_bom(sample: bytes) -> str | None:
    """``"utf-16-le"`` or ``"utf-16-be"`` where ``sample`` (a file's first bytes, no
    byte-order mark) looks like UTF-16 text: most of its odd (or even) bytes are 0,
    as in ASCII letters written two bytes each; else None."""
    sample = sample[:4096]
    if len(sample) < 4 or sample.count(0) < len(sample) / 4:
        return None
    odd, even = sample[1::2].count(0), sample[0::2].count(0)
    if odd > 0.6 * len(sample) / 2:
        return "utf-16-le"
    if even > 0.6 * len(sample) / 2:
        return "utf-16-be"
    return None


def _no_bom_utf16(sample: bytes, where: str, option: str) -> None:
    guess = utf16_without_bom(sample)
    if guess is not None:
        raise ValueError(f"{where}: looks like UTF-16 without a byte-order mark (every "
                         f"other byte is 0); pass {option.format(guess)}, or re-save "
                         "the file as UTF-8")


def decode(raw: bytes, encoding: str, where: str,
           option: str = "encoding='{}'") -> str:
    """``raw`` decoded with ``encoding``; read as UTF-8, a byte-order mark (UTF-8,
    UTF-16 or UTF-32, little- or big-endian) says the codec and is dropped.

    Undecodable bytes are an error that names ``where``, the line and the option
    (``option`` formatted with an encoding's name); nothing is guessed. A file that is
    UTF-8 elsewhere is told which line is not, never advised another encoding; read
    with a single-byte encoding (Latin-1, cp1252), a file whose non-ASCII lines are
    UTF-8 gives one :class:`MojibakeWarning` naming the first such line.
    """
    utf8 = codecs.lookup(encoding).name == "utf-8"
    codec = next((c for bom, c in BOMS if raw.startswith(bom)),
                 "utf-8") if utf8 else encoding
    if codec == "utf-8":
        _no_bom_utf16(raw, where, option)
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        bad = raw[err.start : err.end]
        found = _utf8_line(raw) if codec == "utf-8" else None
        if found is not None:
            before = ("the line before it is" if line == 2 else
                      f"the {line - 1} lines before it are" if line > 2 else
                      f"line {found[0]} is")
            raise ValueError(
                f"{where}: line {line} is not UTF-8; {before}. The file mixes "
                f"encodings (line {line} has the bytes {bad!r}) and no other one "
                "reads it all: fix that line's text, or re-save the file as UTF-8 "
                "where it was made."
            ) from err
        raise ValueError(
            f"{where}, line {line}: the bytes {bad!r} are not valid {encoding} "
            f"({err.reason}). Pass the file's encoding, e.g. "
            f"{option.format('cp1252')} or {option.format('latin-1')} for a file "
            "saved by older Windows or Excel, or re-save the file as UTF-8."
        ) from err

    found = _utf8_line(raw) if not utf8 and _single_byte(codec) else None
    if found is not None:
        line, shown = found
        word = next(w for w in shown.split() if not w.isascii())
        warnings.warn(
            f"{where}: read as {encoding}, but line {line} is UTF-8 "
            f"({word.decode(codec)[:30]!r} here is {word.decode('utf-8')[:30]!r} in "
            "UTF-8): if the file is UTF-8, drop the encoding option (a line that is "
            "not UTF-8 will then be named)",
            MojibakeWarning, stacklevel=2)
    return text


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The text of ``path`` (decompressed by suffix) decoded with ``encoding``, as
    :func:`decode` reads it (byte-order marks; an error naming the line)."""
    return decode(read_bytes(path), encoding, str(path))


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


def _wide(codec: str) -> bool:
    """Whether ``codec`` spends more than one byte on a line break (UTF-16, UTF-32):
    its lines cannot be found by splitting bytes at ``\\n``."""
    return len("\n\n".encode(codec)) - len("\n".encode(codec)) > 1


def stream_lines(raw: BinaryIO, encoding: str, where: str,
                 option: str = "encoding='{}'") -> Iterator[tuple[int, str]]:
    """Each line of the byte stream ``raw`` with its 1-based number, decoded as
    :func:`decode` decodes a whole file (a byte-order mark says the codec and is
    dropped; bytes not in ``encoding`` are an error naming the line), one line at a
    time: memory holds one line, whatever the size of the stream. ``\\r\\n``,
    ``\\n`` and a lone ``\\r`` end a line (as ``str.splitlines``)."""
    head = raw.read(4096)
    utf8 = codecs.lookup(encoding).name == "utf-8"
    codec = next((c for bom, c in BOMS if head.startswith(bom)),
                 "utf-8") if utf8 else encoding
    if codec == "utf-8":
        _no_bom_utf16(head, where, option)
    stream = io.BufferedReader(_Prefixed(head, raw))
    number, seen_utf8 = 0, False
    mojibake = not utf8 and _single_byte(codec)
    if _wide(codec):
        text = io.TextIOWrapper(stream, encoding=codec, newline=None)
        try:
            for line in text:
                for piece in line.splitlines() or [""]:
                    number += 1
                    yield number, piece
        except UnicodeDecodeError as err:
            raise ValueError(
                f"{where}, line {number + 1}: bytes that are not valid {codec} "
                f"({err.reason}); pass the file's encoding ({option.format('...')}) "
                "or re-save the file as UTF-8.") from err
        return
    first = True
    for data in stream:
        if first and codec == "utf-8-sig":
            data = data.removeprefix(codecs.BOM_UTF8)
        first = False
        try:
            line = data.decode("utf-8" if codec == "utf-8-sig" else codec)
        except UnicodeDecodeError as err:
            bad = data[err.start:err.end]
            if codec in ("utf-8", "utf-8-sig") and seen_utf8:
                before = ("the line before it is" if number == 1 else
                          f"the {number} lines before it are")
                raise ValueError(
                    f"{where}: line {number + 1} is not UTF-8; {before}. The file "
                    f"mixes encodings (line {number + 1} has the bytes {bad!r}) and "
                    "no other one reads it all: fix that line's text, or re-save "
                    "the file as UTF-8 where it was made.") from err
            raise ValueError(
                f"{where}, line {number + 1}: the bytes {bad!r} are not valid "
                f"{encoding} ({err.reason}). Pass the file's encoding, e.g. "
                f"{option.format('cp1252')} or {option.format('latin-1')} for a "
                "file saved by older Windows or Excel, or re-save the file as "
                "UTF-8.") from err
        if not data.isascii():
            seen_utf8 = True
            if mojibake:
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    pass
                else:
                    mojibake = False
                    warnings.warn(
                        f"{where}: read as {encoding}, but line {number + 1} is "
                        "UTF-8: if the file is UTF-8, drop the encoding option",
                        MojibakeWarning, stacklevel=2)
        for piece in line.splitlines() or [""]:
            number += 1
            yield number, piece


class _Prefixed(io.RawIOBase):
    """``raw`` with the bytes ``head`` (already read from it) put back in front."""

    def __init__(self, head: bytes, raw: BinaryIO) -> None:
        self.head, self.raw = head, raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
            return n
        data = self.raw.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)
