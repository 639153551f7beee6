"""Unicode normalisation in tokenize (issue 7, item 5): macOS writes file names and
often file contents in NFD (a base letter followed by combining marks), most other
systems in NFC (precomposed letters). The same Vietnamese words must give the same
tokens and the same vocabulary ids either way."""

import unicodedata

import pytest

from lamalib.data import Vocab, tokenize

WORDS = "Đá lạnh, phở bò và cà phê sữa đá."


@pytest.mark.parametrize("form", ["NFD", "NFC"])
def test_decomposed_text_tokenizes_like_composed(form):
    text = unicodedata.normalize(form, WORDS)
    if form != "NFC":
        assert text != WORDS  # the input really is decomposed
    expected = ["đá", "lạnh", ",", "phở", "bò", "và", "cà", "phê", "sữa", "đá", "."]
    assert tokenize(text) == expected
    assert all(unicodedata.is_normalized("NFC", tok) for tok in tokenize(text))


def test_vocabulary_from_nfc_text_encodes_nfd_text():
    vocab = Vocab.build([unicodedata.normalize("NFC", "đá lạnh")] * 2)
    nfd = unicodedata.normalize("NFD", "đá lạnh")
    ids = vocab.encode(nfd)
    assert vocab.unk_id not in ids
    assert ids == vocab.encode("đá lạnh") == [vocab["đá"], vocab["lạnh"]]
    # and the other way round: a vocabulary built from NFD files
    vocab_nfd = Vocab.build([nfd])
    assert vocab_nfd.encode("đá lạnh") == vocab_nfd.encode(nfd)
    assert vocab_nfd.unk_id not in vocab_nfd.encode("đá lạnh")
