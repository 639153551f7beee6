"""The course's pretrained encoder: its files, loading them offline, and reading its
attention (chapter "Pretraining"; chapters 9 and 10 study its heads).

A folder holds ``model.safetensors`` (the :class:`~lamalib.models.mlm.MaskedLM`'s
weights, half precision), ``tokenizer.json`` (its WordPiece tokenizer), ``config.json``
(the model's sizes and the SHA-256 of both files) and ``MODEL_CARD.md``. The course
ships one in the package (``lamalib/pretrained/course_encoder/``), written by
``python -m lamalib.experiments pretrain``; :func:`load_course_encoder` reads it without
network and refuses a file whose checksum differs.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import NamedTuple

import torch

from lamalib.data.fetch import sha256sum
from lamalib.data.subword import SubwordTokenizer
from lamalib.models.mlm import MaskedLM
from lamalib.nn.self_attention.collect import collect_attention

COURSE_ENCODER_DIR = (Path(__file__).resolve().parents[1] / "pretrained"
                      / "course_encoder")
WEIGHTS, TOKENIZER, CONFIG = "model.safetensors", "tokenizer.json", "config.json"
MAKE_IT = ("LAMALIB_PROFILE=full python -m lamalib.experiments pretrain --corpus imdb "
           "--out lamalib/pretrained/course_encoder (see its MODEL_CARD.md for the "
           "exact command)")


class EncoderUnavailable(FileNotFoundError):
    """The folder has no pretrained encoder (not made yet, or a partial copy)."""


class ChecksumMismatch(ValueError):
    """A file of the encoder is not the one its ``config.json`` records."""


class PretrainedEncoder(NamedTuple):
    """What :func:`load_course_encoder` returns: the model (eval mode) and its
    tokenizer."""

    model: MaskedLM
    tokenizer: SubwordTokenizer


def save_encoder(model: MaskedLM, tokenizer: SubwordTokenizer, folder: str | Path,
                 half: bool = True, extra: dict | None = None) -> dict:
    """Write ``model`` and ``tokenizer`` to ``folder``: weights (float16 when
    ``half``) as safetensors, ``tokenizer.json`` and ``config.json`` with their
    SHA-256. Returns what ``config.json`` holds; ``extra`` is added to it."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    dtype = torch.float16 if half else torch.float32
    # The output layer is tied to the embedding, so the state dict holds each tensor
    # once; safetensors wants contiguous CPU tensors.
    tensors = {k: v.detach().to("cpu", dtype if v.is_floating_point() else v.dtype)
               .contiguous() for k, v in model.state_dict().items()}
    save_file(tensors, str(folder / WEIGHTS), metadata={"format": "pt"})
    tokenizer.save(folder / TOKENIZER)
    config = {"model": "MaskedLM", "vocab_size": len(tokenizer),
              "config": asdict(model.config), "dtype": str(dtype).replace("torch.", ""),
              "params": sum(p.numel() for p in model.parameters()),
              "sha256": {name: sha256sum(folder / name)
                         for name in (WEIGHTS, TOKENIZER)},
              **(extra or {})}
    (folder / CONFIG).write_text(json.dumps(config, indent=1) + "\n")
    return config


def _checked(folder: Path) -> dict:
    """``config.json`` of ``folder`` once every file it records has its checksum."""
    missing = [n for n in (CONFIG, WEIGHTS, TOKENIZER) if not (folder / n).is_file()]
    if missing:
        raise EncoderUnavailable(
            f"no pretrained encoder in {folder.name}/ ({', '.join(missing)} missing). "
            f"Make it with: {MAKE_IT}")
    config = json.loads((folder / CONFIG).read_text())
    for name, expected in config["sha256"].items():
        actual = sha256sum(folder / name)
        if actual != expected:
            raise ChecksumMismatch(
                f"{folder.name}/{name} has SHA-256 {actual[:12]}..., but config.json "
                f"records {expected[:12]}...: the file is damaged or from another run "
                "(a Git LFS pointer, a partial copy?). Reinstall lamalib, or run the "
                f"pretraining again: {MAKE_IT}")
    return config


def load_course_encoder(folder: str | Path | None = None,
                        device: str | torch.device = "cpu") -> PretrainedEncoder:
    """The course's pretrained encoder, offline: ``(model, tokenizer)``.

    Args:
        folder: a folder written by ``pretrain --out`` (default: the one lamalib ships).
        device: where the model goes (float32 weights, eval mode).

    Raises :class:`EncoderUnavailable` when the files are not there (the message says
    which command makes them) and :class:`ChecksumMismatch` when a file differs from
    the one recorded.
    """
    from safetensors.torch import load_file

    folder = COURSE_ENCODER_DIR if folder is None else Path(folder)
    config = _checked(folder)
    model = MaskedLM(config["vocab_size"], **config["config"])
    state = load_file(str(folder / WEIGHTS))
    model.load_state_dict({k: v.float() if v.is_floating_point() else v
                           for k, v in state.items()})
    tokenizer = SubwordTokenizer.from_file(folder / TOKENIZER)
    if len(tokenizer) != config["vocab_size"]:
        raise ChecksumMismatch(
            f"{folder.name}/{TOKENIZER} has {len(tokenizer)} tokens, the model "
            f"{config['vocab_size']}: files of two runs")
    return PretrainedEncoder(model.to(device).eval(), tokenizer)


def encoder_ids(tokenizer: SubwordTokenizer, text: str, max_len: int) -> list[int]:
    """``text`` as the encoder reads it, ``[CLS] pieces [SEP]``, cut to ``max_len``
    ids (the last kept piece is followed by ``[SEP]``)."""
    return cut_to_length(tokenizer.encode(text, add_cls=True), max_len,
                         tokenizer.sep_id)


def cut_to_length(ids: list[int], max_len: int, sep_id: int) -> list[int]:
    """Encoded ``[CLS] pieces [SEP]`` cut to ``max_len`` ids, ``[SEP]`` kept last."""
    return ids if len(ids) <= max_len else [*ids[:max_len - 1], sep_id]


def encoder_attention(model: MaskedLM, tokenizer: SubwordTokenizer,
                      text: str) -> tuple[list[str], torch.Tensor]:
    """Every layer's and head's attention over one text, read from the model.

    The text is encoded as in pretraining, ``[CLS] pieces [SEP]``, cut to the model's
    ``max_len`` positions (the last kept piece is followed by ``[SEP]``).

    Returns:
        the pieces (specials included) and ``weights (L, H, T, T)``: row ``i`` of
        ``weights[l, h]`` is how query token ``i`` spreads its attention over the keys.
    """
    ids = encoder_ids(tokenizer, text, model.config.max_len)
    device = next(model.parameters()).device
    tokens = torch.tensor([ids], device=device)  # (1, T)
    mask = torch.ones_like(tokens, dtype=torch.bool)  # (1, T)
    was_training = model.training
    model.eval()  # no dropout on the weights we read
    try:
        weights = collect_attention(model, lambda: model.body(tokens, mask))
    finally:
        model.train(was_training)
    return tokenizer.decode(ids), weights[:, 0].cpu()  # (L, H, T, T)
