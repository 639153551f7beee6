"""The course's WordPiece tokenizer (lamalib.data.subword): fixed special ids, round
trips, unknown characters, and the Vocab interface the batching uses."""

import pytest

from lamalib.data import BucketBatches
from lamalib.data.batching import encode_texts
from lamalib.data.subword import SPECIALS, SubwordTokenizer, train_subword_tokenizer

CORPUS = [
    "The movie was great and the actors were great too.",
    "A boring movie: the plot was slow, the music was loud.",
    "Great music, great actors, a great plot!",
    "The actors were boring and the movie was slow.",
    "I watched the movie twice; the second time it was better.",
] * 4


@pytest.fixture(scope="module")
def tok():
    return train_subword_tokenizer(CORPUS, vocab_size=120, min_frequency=1)


def test_specials_have_fixed_ids(tok):
    assert tok.itos[:5] == list(SPECIALS)
    assert (tok.pad_id, tok.unk_id, tok.cls_id, tok.sep_id, tok.mask_id) == (
        0, 1, 2, 3, 4)
    assert tok["[MASK]"] == 4 and tok.special_ids == (0, 1, 2, 3, 4)


def test_round_trip_on_text(tok):
    text = "The Movie was GREAT, the plot was slow."
    ids = tok.encode(text)
    assert tok.to_text(ids) == text.lower()
    assert tok.to_text(tok.encode(text, add_cls=True)) == text.lower()
    assert tok.decode(tok.encode(text, add_cls=True))[0] == "[CLS]"
    assert tok.decode(tok.encode(text, add_cls=True))[-1] == "[SEP]"


def test_rare_words_become_pieces_and_unknown_characters_unk(tok):
    pieces = tok.tokens("boringness")  # never seen whole: several pieces
    assert len(pieces) > 1 and all(p.startswith("##") for p in pieces[1:])
    assert "[UNK]" not in pieces
    assert tok.encode("☃") == [tok.unk_id]  # a character the corpus never showed
    assert tok.unk_id in tok.encode("great ☃ movie")


def test_empty_text_is_refused(tok):
    with pytest.raises(ValueError, match="empty text"):
        tok.encode("   ")


def test_file_round_trip_and_bad_specials(tok, tmp_path):
    tok.save(tmp_path / "tokenizer.json")
    again = SubwordTokenizer.from_file(tmp_path / "tokenizer.json")
    assert again.itos == tok.itos
    assert again.encode(CORPUS[1]) == tok.encode(CORPUS[1])
    from tokenizers import Tokenizer, models

    other = Tokenizer(models.WordLevel({"[UNK]": 0, "[PAD]": 1, "a": 2, "b": 3,
                                        "c": 4}, unk_token="[UNK]"))
    with pytest.raises(ValueError, match="special tokens"):
        SubwordTokenizer(other)


def test_the_batching_takes_it_as_a_vocab(tok):
    ids = encode_texts(CORPUS[:3], tok, add_cls=True, max_len=8)
    assert all(len(row) <= 8 and row[0] == tok.cls_id for row in ids)
    batch = next(iter(BucketBatches(ids, [0, 1, 0], batch_size=3, shuffle=False,
                                    pad_id=tok.pad_id)))
    assert batch.tokens.shape[0] == 3 and batch.mask.sum() == sum(map(len, ids))
