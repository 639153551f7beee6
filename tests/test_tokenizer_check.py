"""What a pretrained tokenizer hides from its model, said in one line
(lamalib.models.tokenizer_check, through hf_encoder.pretrained_attention), and a
folder passed by path says that no pinned SHA-256 checked it."""

import warnings

import pytest

transformers = pytest.importorskip("transformers")

from lamalib.data.fetch import sha256sum  # noqa: E402
from lamalib.models.hf_encoder import load_encoder, pretrained_attention  # noqa: E402
from lamalib.models.tokenizer_check import (reading_warnings,  # noqa: E402
                                            stripped_accents, unknown_share)
from tiny_bert import saved_tiny_bert  # noqa: E402

WORDS = "the cat sat on mat film was slow do nay qua".split()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = saved_tiny_bert(tmp_path_factory.mktemp("t") / "tiny", WORDS)
    with pytest.warns(UserWarning) as said:
        encoder = load_encoder(folder)
    return folder, encoder, [str(w.message) for w in said]


def test_a_folder_by_path_says_its_weights_are_not_checked_and_gives_their_hash(tiny):
    folder, _, said = tiny
    digest = sha256sum(folder / "model.safetensors")
    lines = [s for s in said if "not checked against a pinned SHA-256" in s]
    assert len(lines) == 1 and lines[0].endswith(digest) and "\n" not in lines[0]


def test_stripped_accents_name_a_word_and_count_them(tiny):
    tokenizer = tiny[1].tokenizer  # BERT uncased: lowercase + strip accents
    assert stripped_accents(tokenizer, "Phim này dở quá") == (3, 3, '"này" -> "nay"')
    assert stripped_accents(tokenizer, "the cat sat on the mat") is None
    assert stripped_accents(tokenizer, "The Cat") is None  # case is not an accent


def test_unknown_share_counts_characters_under_unk(tiny):
    tokenizer = tiny[1].tokenizer
    assert unknown_share(tokenizer, "the cat") == 0.0
    # "zzzz" and "qqqq" are unknown (8 letters), "cat" known (3): 8 of 11
    assert unknown_share(tokenizer, "zzzz cat qqqq") == pytest.approx(8 / 11)


def test_the_attention_warns_once_per_thing_hidden_and_not_on_plain_text(tiny):
    _, encoder, _ = tiny
    with pytest.warns(UserWarning) as said:
        pretrained_attention(*encoder, "Phim này dở quá")
    lines = [str(w.message) for w in said]
    assert len(lines) == 1 and lines[0].startswith("the tokenizer strips accents")
    with pytest.warns(UserWarning, match="reads 100% of the text's characters as its "
                                         r"unknown piece \[UNK\]"):
        pretrained_attention(*encoder, "zzzz qqqq")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pretrained_attention(*encoder, "the cat sat on the mat")
        assert reading_warnings(encoder.tokenizer, "the film was slow") == []


def test_the_attention_command_says_each_in_one_line_on_stderr(tiny, tmp_path):
    """The ``attention`` command on a folder passed by path, with a Vietnamese text:
    one line each for the unchecked weights and the stripped accents, table or view
    alike, and nothing else on stderr."""
    import json
    import subprocess
    import sys

    folder = tiny[0]
    page = tmp_path / "v.html"
    base = [sys.executable, "-m", "lamalib.experiments", "attention", "--model",
            str(folder), "Phim này dở quá"]
    for extra in ([], ["--html", str(page), "--start", "2,2"]):
        done = subprocess.run(base + extra, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        lines = done.stderr.splitlines()
        assert len(lines) == 2 and all(s.startswith("warning: ") for s in lines)
        assert sum("not checked against a pinned SHA-256" in s for s in lines) == 1
        assert sum(s.startswith("warning: the tokenizer strips accents (") and
                   "3 of 3 accented words" in s for s in lines) == 1
    # --start counts from 1: 2,2 is the last head of 2 layers of 2, the library's (1, 1)
    data = page.read_text(encoding="utf-8").split('type="application/json"')[1]
    spec = json.loads(data[data.index(">") + 1:data.index("</script>")])
    assert spec["start"] == [1, 1]
