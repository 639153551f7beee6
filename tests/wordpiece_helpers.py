"""Helpers of the tests of saved BERTs that read WordPiece ids: a tiny WordPiece
vocabulary, its tokenizer (``BertTokens``), and a BERT small enough to train in a test."""

import pytest

WORDPIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "warm", "film",
              "dull", "fun", "##ny", "mess", ",", "."]
BERT = dict(pretrained_name=None, hidden=8, layers=1, heads=2, intermediate=16,
            max_positions=32)


def wordpiece_tokens(tmp_path, max_length: int):
    """``BertTokens`` over :data:`WORDPIECES`, cutting texts at ``max_length`` pieces
    (skips the test when transformers is not installed)."""
    transformers = pytest.importorskip("transformers")
    from lamalib.models.bert import BertTokens

    ids = {w: i for i, w in enumerate(WORDPIECES)}
    try:  # transformers 5: BertTokenizer takes the vocabulary itself
        tokenizer = transformers.BertTokenizer(vocab=ids, do_lower_case=True)
    except TypeError:  # transformers 4: a vocabulary file
        vocab_file = tmp_path / "wordpiece.txt"
        vocab_file.write_text("\n".join(WORDPIECES) + "\n")
        tokenizer = transformers.BertTokenizerFast(vocab_file=str(vocab_file))
    assert len(tokenizer) == len(WORDPIECES)
    return BertTokens(tokenizer, max_length=max_length)
