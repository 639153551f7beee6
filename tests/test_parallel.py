"""The parallel-pairs loader: formats, NFC, errors naming the line, the seeded split,
vocabularies and batches."""

import gzip
import unicodedata

import pytest

from lamalib.data.datasets.translation import BOS_ID, EOS_ID, PAD_ID
from lamalib.data.parallel import (UNK_ID, PairVocab, build_vocabs, encode_pairs,
                                   pairs_from_lines, read_pairs, split_pairs)


def test_tatoeba_three_columns_and_a_users_two_columns_read_the_same(tmp_path):
    tatoeba = tmp_path / "vie.txt"
    tatoeba.write_text("Run!\tChạy!\tCC-BY 2.0 (France) Attribution: tatoeba.org #1\n"
                       "Help!\tGiúp tôi với!\tCC-BY 2.0 (France) Attribution: #2\n",
                       encoding="utf-8")
    own = tmp_path / "mine.tsv"
    own.write_text("Run!\tChạy!\n\nHelp!\tGiúp tôi với!\n", encoding="utf-8")
    a, b = read_pairs(tatoeba), read_pairs(own)
    assert a.source == b.source == ["Run!", "Help!"]
    assert a.target == b.target == ["Chạy!", "Giúp tôi với!"]
    assert b.lines == [1, 3]  # the blank line is skipped but counted


def test_decomposed_text_is_read_as_nfc(tmp_path):
    nfd = unicodedata.normalize("NFD", "Tôi thích trà.")
    assert nfd != "Tôi thích trà."
    path = tmp_path / "p.tsv.gz"
    path.write_bytes(gzip.compress(f"I like tea.\t{nfd}\n".encode()))
    pairs = read_pairs(path)
    assert pairs.target == ["Tôi thích trà."]
    assert unicodedata.is_normalized("NFC", pairs.target[0])


@pytest.mark.parametrize("line, words", [
    ("no tab here", "line 2: no tab"),
    ("Hello\t", "line 2: the target is empty"),
    ("\tXin chào", "line 2: the source is empty"),
])
def test_bad_lines_name_the_file_and_line(tmp_path, line, words):
    path = tmp_path / "bad.tsv"
    path.write_text(f"Hi\tChào\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=words):
        read_pairs(path)


def test_another_encoding_names_the_line(tmp_path):
    path = tmp_path / "latin.tsv"
    path.write_bytes("Hi\tChào\nCafé\tcà phê\n".encode("utf-8")[:0]
                     + b"Hi\tbye\nCaf\xe9\tcafe\n")
    with pytest.raises(ValueError, match="line 2"):
        read_pairs(path)
    assert read_pairs(path, encoding="latin-1").source[1] == "Café"


def test_split_is_seeded_disjoint_and_complete():
    pairs = pairs_from_lines([f"s{i}\tt{i}" for i in range(50)])
    a = split_pairs(pairs, 0.1, 0.2, seed=3)
    b = split_pairs(pairs, 0.1, 0.2, seed=3)
    c = split_pairs(pairs, 0.1, 0.2, seed=4)
    assert [p.source for p in a] == [p.source for p in b]
    assert [p.source for p in a] != [p.source for p in c]
    train, valid, test = a
    assert (len(train), len(valid), len(test)) == (35, 5, 10)
    assert sorted(train.source + valid.source + test.source) == sorted(pairs.source)


def test_vocab_ids_are_the_models_and_unknowns_map_to_unk():
    pairs = pairs_from_lines(["I like tea.\tTôi thích trà.", "I like it.\tTôi thích nó."])
    src, tgt = build_vocabs(pairs)
    assert src.itos[:4] == ["<pad>", "<bos>", "<eos>", "<unk>"]
    assert (PAD_ID, BOS_ID, EOS_ID, UNK_ID) == (0, 1, 2, 3)
    assert src.itos[4:7] == [".", "i", "like"]  # most frequent first, ties a-z
    task = encode_pairs(pairs_from_lines(["I like coffee.\tTôi thích cà phê."]),
                        src, tgt)
    assert task.src[0] == [src["i"], src["like"], UNK_ID, src["."]]
    assert task.tgt_tokens[0] == ["tôi", "thích", "cà", "phê", "."]  # kept for BLEU
    batch = task.collate([0])
    assert batch.tgt_in[0, 0] == BOS_ID and batch.tgt_out[0, -1] == EOS_ID
    assert tgt.decode([*task.tgt[0], EOS_ID, 7]) == ["tôi", "thích", "<unk>", "<unk>",
                                                     "."]
    with pytest.raises(ValueError, match="starts with"):
        PairVocab(["<pad>", "<unk>"])
