"""Word vectors from GloVe / word2vec text files: reading, the embedding matrix, and a
run of the experiments command that starts from such a file."""

import gzip
import json

import numpy as np
import pytest
import torch

from lamalib.data import Vocab
from lamalib.embeddings import read_vectors, save_vectors, vectors_for
from lamalib.embeddings.vectors_file import embedding_matrix
from lamalib.experiments.cli import main


def test_glove_format_is_read_with_spaces_in_words_and_only_the_asked_words(tmp_path):
    path = tmp_path / "glove.txt"
    # GloVe: no header; 840B has "words" with spaces: the last E fields are the vector.
    path.write_text("the 0.1 0.2 0.3\n. . . 1 2 3\ncat -1 0 1.5\nthe 9 9 9\n")
    words, vectors = read_vectors(path)
    assert words == ["the", ". . .", "cat"]  # the first vector of a word wins
    np.testing.assert_allclose(vectors, [[0.1, 0.2, 0.3], [1, 2, 3], [-1, 0, 1.5]])
    words, vectors = read_vectors(path, words={"cat", "dog"})
    assert words == ["cat"] and vectors.shape == (1, 3)


def test_word2vec_format_round_trips_through_save_compressed(tmp_path):
    words = ["a", "b"]
    vectors = np.array([[0.5, -0.25], [1e-3, 2.0]], dtype=np.float32)
    path = save_vectors(tmp_path / "v.txt.gz", words, vectors)
    with gzip.open(path, "rt") as f:
        assert f.readline() == "2 2\n"  # word2vec's header: count, width
    got_words, got = read_vectors(path)
    assert got_words == words
    np.testing.assert_allclose(got, vectors, rtol=1e-5)


def test_a_ragged_line_is_an_error_that_names_the_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("a 1 2 3\nb 1 2\n")
    with pytest.raises(ValueError, match="line 2: 2 numbers, expected 3"):
        read_vectors(path)
    with pytest.raises(FileNotFoundError, match="glove"):
        read_vectors(tmp_path / "missing.txt")


def test_the_matrix_takes_known_rows_draws_the_rest_and_zeroes_the_pad(tmp_path):
    vocab = Vocab.build(["good film", "bad film", "odd"], min_freq=1)
    path = tmp_path / "v.txt"
    path.write_text("good 1 0\nbad -1 0\nfilm 0 1\n")
    matrix, info = vectors_for(vocab, path, seed=3)  # (V, 2)
    assert matrix.shape == (len(vocab), 2) and info["dim"] == 2
    for word, row in (("good", [1, 0]), ("bad", [-1, 0]), ("film", [0, 1])):
        assert matrix[vocab.stoi[word]].tolist() == row
    assert matrix[vocab.pad_id].abs().sum() == 0
    assert matrix[vocab.stoi["odd"]].abs().sum() > 0  # drawn, not zero
    assert info["coverage"] == pytest.approx(3 / len(vocab))
    # The draw is the seed's: the same seed gives the same matrix.
    assert torch.equal(matrix, vectors_for(vocab, path, seed=3)[0])


def test_unknown_rows_get_the_known_vectors_spread():
    lookup = {f"w{i}": np.random.default_rng(i).normal(0, 2.0, 50) for i in range(200)}
    itos = ["<pad>", *lookup, *[f"new{i}" for i in range(2000)]]
    matrix = embedding_matrix(itos, lookup, 50, pad_id=0, seed=0)
    drawn = matrix[201:]
    assert drawn.std().item() == pytest.approx(2.0, rel=0.05)


def _tsv(path, n, offset=0):
    words = {"pos": "good fine great", "neg": "bad awful poor"}
    lines = []
    for i in range(n):
        label = "pos" if (i + offset) % 2 else "neg"
        lines.append(f"{label}\t{words[label]} film number {i}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_run_starts_from_a_vectors_file_and_records_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    train, test = _tsv(tmp_path / "tr.tsv", 60), _tsv(tmp_path / "te.tsv", 20, 1)
    vectors = tmp_path / "vec.txt"
    save_vectors(vectors, ["good", "bad", "film"],
                 np.array([[1, 0, 0, 0], [-1, 0, 0, 0], [0, 1, 0, 0]], np.float32))
    args = ["run", "--model", "avg", "--train", str(train), "--test", str(test),
            "--set", "header=false", "--set", "epochs=1",
            "--results", str(tmp_path / "results"),
            "--checkpoints", str(tmp_path / "ckpt")]
    with pytest.raises(ValueError, match="add --set embed_dim=4"):
        main([*args, "--set", f"embeddings={vectors}", "--set", "embed_dim=8"])
    main([*args, "--set", f"embeddings={vectors}", "--set", "embed_dim=4"])
    [path] = (tmp_path / "results").glob("*.json")
    r = json.loads(path.read_text())
    assert r["embeddings_file"]["file"] == "vec.txt"
    assert r["embeddings_file"]["dim"] == 4 and len(r["embeddings_file"]["sha256"]) == 64
    assert 0 < r["embeddings_file"]["coverage"] < 1
    with pytest.raises(SystemExit, match="embeddings=glove.missing.txt: no such "
                                         "file"):  # said before any data is read
        main([*args, "--set", "embeddings=glove.missing.txt", "--force"])
