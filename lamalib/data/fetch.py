"""Downloads into the data cache, checked by SHA-256, never left half-written.

Offline, a download fails fast with a message that names the embedded alternative.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Sequence

EMBEDDED_HINT = (
    "Without network, use an embedded dataset instead: load_dataset('movie_reviews'), "
    "'newsgroups' or 'synthetic_sentiment' (the quick profile uses them), or your own "
    "file with load_table(path)."
)


class DownloadError(RuntimeError):
    """A download failed (no network, bad status, wrong checksum)."""


def _default_dir() -> Path:
    """``data/`` of a source checkout (git-ignored but for its README), else
    ``~/.cache/lamalib``: where lamalib writes when no variable says otherwise."""
    checkout = Path(__file__).resolve().parents[2] / "data"
    return (checkout if (checkout / "README.md").exists()
            else Path.home() / ".cache" / "lamalib")


def data_dir() -> Path:
    """Where local copies of datasets are looked for: ``$LAMALIB_DATA``, else the
    default folder (``data/`` of a source checkout, else ``~/.cache/lamalib``).

    ``$LAMALIB_DATA`` is only read, never written to (it may be a shared, read-only
    copy): downloads and caches go to :func:`download_dir` and ``cache_dir``."""
    if os.environ.get("LAMALIB_DATA"):
        return Path(os.environ["LAMALIB_DATA"])
    path = _default_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


def writable_dir() -> Path:
    """Where lamalib writes: ``$LAMALIB_CACHE``, else the default folder (``data/`` of
    a source checkout, else ``~/.cache/lamalib``); never ``$LAMALIB_DATA``."""
    path = Path(os.environ.get("LAMALIB_CACHE") or _default_dir())
    path.mkdir(parents=True, exist_ok=True)
    return path


def download_dir(create: bool = True) -> Path:
    """Where downloads go: ``$LAMALIB_CACHE/downloads``, else the default folder (as
    before ``LAMALIB_CACHE`` existed: ``data/`` of a checkout or
    ``~/.cache/lamalib``)."""
    if os.environ.get("LAMALIB_CACHE"):
        path = Path(os.environ["LAMALIB_CACHE"]) / "downloads"
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return path
    return writable_dir()


def sha256sum(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(
    url: str, filename: str, sha256: str | None, timeout: float = 15.0,
    subfolder: str | None = None,
) -> Path:
    """Fetch ``url`` into :func:`download_dir` as ``filename`` unless a verified copy
    is there or in the data directory (:func:`data_dir`, only read), at its top or in
    its ``subfolder`` when one is given.

    The bytes go to a temporary file next to the target and are renamed into place only
    after the checksum matches, so an interrupted or corrupt download leaves nothing.
    """
    target = download_dir() / filename
    nested = (data_dir() / subfolder / filename,) if subfolder else ()
    for found in dict.fromkeys((data_dir() / filename, *nested, target)):
        if found.is_file() and (sha256 is None or sha256sum(found) == sha256):
            return found
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".part"
    )
    tmp = Path(tmp_name)
    try:
        with (
            os.fdopen(fd, "wb") as out,
            urllib.request.urlopen(url, timeout=timeout) as resp,
        ):
            while block := resp.read(1 << 20):
                out.write(block)
        got = sha256sum(tmp)
        if sha256 is not None and got != sha256:
            raise DownloadError(
                f"Checksum mismatch for {url}: expected {sha256}, got {got}. "
                "The file was "
                "discarded; the source may have changed (please report it)."
            )
        os.replace(tmp, target)
    except (urllib.error.URLError, OSError, TimeoutError) as err:
        raise DownloadError(
            f"Could not download {url} ({err}). {EMBEDDED_HINT}"
        ) from err
    finally:
        tmp.unlink(missing_ok=True)
    return target


def local_copy(names: Sequence[str], suffixes: Sequence[str] = ("", ".xz", ".gz"),
               folders: bool = False) -> Path | None:
    """The first ``data_dir() / (name + suffix)`` that is a file (or, with
    ``folders``, a folder): a copy the user put in the data directory; else the same
    in :func:`download_dir` (an earlier download); else None."""
    for root in dict.fromkeys((data_dir(), download_dir(create=False))):
        for name in names:
            for suffix in suffixes:
                path = root / (name + suffix)
                if path.is_file() or (folders and path.is_dir()):
                    return path
    return None


def local_or_download(names: Sequence[str], url: str, filename: str,
                      sha256: str | None, what: str, path=None,
                      suffixes: Sequence[str] = ("", ".xz", ".gz"),
                      folders: bool = False,
                      option: str = "path=FILE to load_dataset") -> Path:
    """``path`` if given, else a local copy (:func:`local_copy`), else ``url``
    downloaded as ``filename``. Offline, a :class:`DownloadError` that says where a
    copy goes: ``what`` describes it, ``option`` is how to pass one's path."""
    if path is not None:
        return Path(path)
    local = local_copy(names, suffixes, folders)
    if local is not None:
        return local
    try:
        return download(url, filename, sha256)
    except DownloadError as err:
        alt = "|".join(s for s in suffixes if s)
        where = " or ".join(f"{data_dir() / n}" + (f"[{alt}]" if alt else "")
                            for n in names)
        raise DownloadError(
            f"{err} With a local copy ({what}), put it at {where}, or set "
            f"LAMALIB_DATA to the folder that holds it, or pass {option}."
        ) from err
