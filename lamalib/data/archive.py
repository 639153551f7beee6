"""The files of a corpus distributed as a folder tree or an archive, read in order
without unpacking anything to disk (chapter "Finding and injecting attention
patterns": Wiki-727K, WikiSection).

Archives: ``.zip``, ``.tar`` and compressed tars (``.tar.gz``/``.tgz``,
``.tar.bz2``/``.tbz2``, ``.tar.xz``), also a tar inside a zip (the Wiki-727K download
is a zip that holds ``wiki_727K.tar.bz2``). Tars are read as streams, one member after
the other, so a 700,000-file archive is never listed whole.
"""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path
from typing import IO, Callable, Iterator

TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz")
ARCHIVE_SUFFIXES = (".zip",) + TAR_SUFFIXES


def is_archive(name: str | Path) -> bool:
    """Whether ``name`` ends like an archive this module reads."""
    return str(name).lower().endswith(ARCHIVE_SUFFIXES)


def _junk(name: str) -> bool:
    # macOS resource forks, hidden files: not part of any corpus
    parts = name.split("/")
    return "__MACOSX" in parts or parts[-1].startswith(".")


def _tar_files(archive: tarfile.TarFile, prefix: str,
               keep: Callable[[str], bool]) -> Iterator[tuple[str, bytes]]:
    for member in archive:
        name = prefix + member.name
        if member.isfile() and not _junk(name) and keep(name):
            yield name, archive.extractfile(member).read()


def _stream_tar(fileobj: IO[bytes], prefix: str,
                keep: Callable[[str], bool]) -> Iterator[tuple[str, bytes]]:
    with tarfile.open(fileobj=fileobj, mode="r|*") as archive:
        yield from _tar_files(archive, prefix, keep)


def iter_files(path: str | Path, keep: Callable[[str], bool] = lambda name: True
               ) -> Iterator[tuple[str, bytes]]:
    """``(name, content)`` of every file under ``path`` whose name ``keep`` accepts.

    A folder is walked in sorted order, names relative to it with ``/``; an archive
    is read in its own order; a tar inside a zip is opened in place, its files named
    ``<tar name>/<member>``. Hidden files and ``__MACOSX`` are skipped.

    Raises:
        FileNotFoundError: ``path`` does not exist. ValueError: it is a file but no
        archive this reads (or a damaged one), with what to do.
    """
    path = Path(path)
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            name = file.relative_to(path).as_posix()
            if not _junk(name) and keep(name):
                yield name, file.read_bytes()
        return
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if not is_archive(path):
        raise ValueError(f"{path} is neither a folder nor an archive "
                         f"({', '.join(ARCHIVE_SUFFIXES)}); unpack it or rename it")
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    if info.is_dir() or _junk(info.filename):
                        continue
                    if info.filename.lower().endswith(TAR_SUFFIXES):
                        with archive.open(info) as inner:
                            yield from _stream_tar(inner, info.filename + "/", keep)
                    elif keep(info.filename):
                        yield info.filename, archive.read(info)
        else:
            with open(path, "rb") as f:
                yield from _stream_tar(f, "", keep)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as err:
        raise ValueError(f"{path}: cannot read it as an archive ({err}); is the "
                         "download complete? Delete it and fetch it again.") from err
