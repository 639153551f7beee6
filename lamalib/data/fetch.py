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


def data_dir() -> Path:
    """The download cache: ``$LAMALIB_DATA``, else ``data/`` of a source checkout, else
    ``~/.cache/lamalib``."""
    if os.environ.get("LAMALIB_DATA"):
        path = Path(os.environ["LAMALIB_DATA"])
    else:
        checkout = Path(__file__).resolve().parents[2] / "data"
        path = (
            checkout
            if (checkout / "README.md").exists()
            else Path.home() / ".cache" / "lamalib"
        )
    path.mkdir(parents=True, exist_ok=True)
    return path


def sha256sum(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download(
    url: str, filename: str, sha256: str | None, timeout: float = 15.0
) -> Path:
    """Fetch ``url`` into the cache as ``filename`` unless a verified copy is there.

    The bytes go to a temporary file next to the target and are renamed into place only
    after the checksum matches, so an interrupted or corrupt download leaves nothing.
    """
    target = data_dir() / filename
    if target.exists() and (sha256 is None or sha256sum(target) == sha256):
        return target
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
    ``folders``, a folder): a copy the user put in the data directory; else None."""
    root = data_dir()
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
