"""A tiny random BERT and its WordPiece tokenizer saved in ``save_pretrained`` layout,
as a reader's local copy of a pretrained model would be (the tests of Hugging Face
encoders: attention distance, lamalib.models.hf_encoder)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import torch


def saved_tiny_bert(folder: Path, words: Sequence[str] | None = None) -> Path:
    """Write the tiny BERT (2 layers, 2 heads, width 16, 64 positions) to ``folder``;
    its vocabulary is ``words`` (default: words of 40 movie-review sentences)."""
    import transformers

    from lamalib.data.registry import load_dataset

    folder.mkdir()
    if words is None:
        texts = load_dataset("movie_reviews", "test").texts
        words = sorted({w for t in texts[:40] for w in t.lower().split()})[:300]
    (folder / "vocab.txt").write_text(
        "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    tokenizer = transformers.BertTokenizer(str(folder / "vocab.txt"))
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=len(tokenizer), hidden_size=16,
                                     num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=64)
    model = transformers.BertModel(config)
    with torch.no_grad():  # sharp, position-dependent heads: argmax ties are unlikely
        model.embeddings.position_embeddings.weight.mul_(20)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
