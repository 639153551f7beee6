"""Diacritic stripping: the merges it makes (đ -> d, ư -> u, tone marks) and the pairs."""

import unicodedata

import pytest

from lamalib.data.diacritics import diacritic_pairs, strip_diacritics


@pytest.mark.parametrize("accented, plain", [
    ("đ", "d"), ("Đ", "D"), ("ư", "u"), ("ơ", "o"), ("ă", "a"), ("â", "a"), ("ê", "e"),
    ("ô", "o"), ("Đường", "Duong"), ("người", "nguoi"), ("Tôi thích trà.", "Toi thich tra."),
])
def test_marks_and_letters_are_merged(accented, plain):
    assert strip_diacritics(accented) == plain


def test_every_tone_of_a_syllable_strips_to_one():
    tones = ["ma", "má", "mà", "mả", "mã", "mạ"]
    assert {strip_diacritics(t) for t in tones} == {"ma"}
    # the same with decomposed input (NFD, as some editors write it)
    assert {strip_diacritics(unicodedata.normalize("NFD", t)) for t in tones} == {"ma"}


def test_text_without_marks_is_unchanged():
    text = "Hello, world! 123 - x_y"
    assert strip_diacritics(text) == text


def test_pairs_keep_the_nfc_target_and_one_syllable_for_one():
    nfd = unicodedata.normalize("NFD", "Việt Nam đẹp")
    pairs = diacritic_pairs(["", nfd, "  Chào bạn. "])
    assert pairs.source == ["Viet Nam dep", "Chao ban."]
    assert pairs.target == ["Việt Nam đẹp", "Chào bạn."]
    assert pairs.lines == [2, 3]
    for s, t in zip(pairs.source, pairs.target):
        assert len(s.split()) == len(t.split())  # a monotone, one-to-one alignment
    with pytest.raises(ValueError):
        diacritic_pairs(["", "  "])
