"""The word-vector experiment: a results file whose scores and neighbours are those
of the trained vectors, with the corpus's identity."""

import json

from lamalib.experiments.cli import main


def test_vectors_on_the_embedded_corpus_write_a_complete_record(tmp_path, monkeypatch):
    import lamalib.experiments.vectors as vectors

    seen = {}
    real = vectors.evaluate_vectors

    def spy(kv):
        seen["kv"] = kv
        return real(kv)

    monkeypatch.setattr(vectors, "evaluate_vectors", spy)
    main(["vectors", "--corpus", "lee", "--epochs", "1", "--dim", "16",
          "--results", str(tmp_path)])
    r = json.loads((tmp_path / "word2vec__gensim_skipgram__lee.json").read_text())
    kv = seen["kv"]
    assert r["vocab_size"] == len(kv) and r["config"]["dim"] == 16
    assert r["metrics"]["WordSim-353 pairs"] == real(kv)["WordSim-353 pairs"]
    assert r["corpus_identity"]["sentences"] == 300  # the Lee background corpus
    for word, near in r["neighbours"].items():
        assert [n for n, _ in near] == [n for n, _ in kv.most_similar(word, topn=8)]
    # The output folder is where, not how: the recorded command leaves it out.
    assert r["command"] == ("python -m lamalib.experiments vectors --corpus lee "
                            "--epochs 1 --dim 16")
