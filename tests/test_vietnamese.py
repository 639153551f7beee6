"""Vietnamese text (issue 59): NFC, word segmentation as a tokenizer choice of the
library, the command and saved models, and the segmenters' word F1 against the gold
file that underthesea's wheel ships (read from the installed package, never copied)."""

import importlib.util
import json
import unicodedata

import pytest

from lamalib.data import tokenize
from lamalib.data import vietnamese as vi
from lamalib.data.vietnamese import (MissingSegmenter, segment, segmentation_f1,
                                     word_spans)
from tests.command_helpers import usage_error

HAS_UNDERTHESEA = importlib.util.find_spec("underthesea") is not None
HAS_PYVI = importlib.util.find_spec("pyvi") is not None
needs_segmenter = pytest.mark.skipif(not (HAS_UNDERTHESEA or HAS_PYVI),
                                     reason="no Vietnamese segmenter (lamalib[vi])")

SENTENCE = "Giảng viên nhiệt tình, không đi trễ."  # written for these tests


def test_a_segmented_word_is_one_token_and_syllables_stay_tokens():
    assert tokenize("giảng_viên nhiệt_tình") == ["giảng_viên", "nhiệt_tình"]
    assert tokenize("giảng viên") == ["giảng", "viên"]
    # an underscore that joins no letters is punctuation, as before
    assert tokenize("_ a _") == ["_", "a", "_"]


def test_word_spans_and_f1_against_a_hand_computed_example():
    assert word_spans(["giảng_viên", "giỏi"]) == {(0, 2), (2, 3)}
    gold = [["giảng viên", "nhiệt tình"]]
    predicted = [["giảng", "viên", "nhiệt_tình"]]
    # right: "nhiệt tình" only; precision 1/3, recall 1/2, F1 = 2PR/(P+R) = 0.4
    score = segmentation_f1(gold, predicted)
    assert score["precision"] == pytest.approx(1 / 3)
    assert score["recall"] == pytest.approx(1 / 2)
    assert score["f1"] == pytest.approx(0.4)
    assert segmentation_f1(gold, gold)["f1"] == 1.0
    with pytest.raises(ValueError, match="syllables"):
        segmentation_f1(gold, [["giảng viên"]])


def test_plain_only_normalises():
    nfd = unicodedata.normalize("NFD", SENTENCE)
    assert nfd != SENTENCE
    assert segment(nfd, "plain") == SENTENCE


@needs_segmenter
def test_segmenter_joins_words_and_ignores_the_unicode_form():
    words = segment(SENTENCE, "vi-words")
    assert "Giảng_viên" in words.split() and "nhiệt_tình" in words.split()
    assert segment(unicodedata.normalize("NFD", SENTENCE), "vi-words") == words
    # syllables are kept: joining the words back gives the sentence's syllables
    assert words.replace("_", " ").split() == segment(SENTENCE, "plain").replace(
        ",", " ,").replace(".", " .").split()


def test_a_missing_segmenter_is_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setattr(vi.util, "find_spec", lambda name: None)
    with pytest.raises(MissingSegmenter, match=r"lamalib\[vi\]"):
        vi.segmenter_package("vi-words")
    with pytest.raises(ValueError, match="plain, vi-words"):
        vi.segmenter_package("words")
    message = usage_error(["run", "--model", "avg", "--dataset", "movie_reviews",
                           "--set", "tokenizer=vi-words"])
    assert "lamalib[vi]" in message and "tokenizer=vi-words" in message
    message = usage_error(["run", "--model", "avg", "--dataset", "movie_reviews",
                           "--set", "tokenizer=words"])
    assert "tokenizer takes one of plain, vi-words" in message


@pytest.mark.skipif(vi.gold_segmentation_file() is None,
                    reason="underthesea (with its gold file) not installed")
@pytest.mark.parametrize("tokenizer, low, high", [
    ("plain", 0.40, 0.55),  # every syllable a word: the issue measured 0.470
    ("vi-words-underthesea", 0.97, 1.0),  # 0.980
    ("vi-words-pyvi", 0.94, 0.97),  # 0.953
])
def test_segmenter_word_f1_against_the_packaged_gold_file(tokenizer, low, high):
    if tokenizer == "vi-words-pyvi" and not HAS_PYVI:
        pytest.skip("pyvi not installed")
    gold = vi.read_gold(vi.gold_segmentation_file())
    assert len(gold) > 2000
    score = segmentation_f1(gold, vi.segment_syllables(gold, tokenizer))
    print(f"{tokenizer}: word F1 {score['f1']:.4f}")
    assert low <= score["f1"] <= high


@needs_segmenter
def test_run_on_a_vietnamese_file_with_words_and_the_saved_model_segments(
        tmp_path, one_thread):
    from lamalib.experiments.cli import main
    from lamalib.models.saved import load_model

    rows = ["label\ttext"] + [
        f"pos\tgiảng viên nhiệt tình {i}" if i % 2 else f"neg\tgiảng viên đi trễ {i}"
        for i in range(40)]
    # one file in NFD: what enters is normalised
    (tmp_path / "train.tsv").write_text(
        unicodedata.normalize("NFD", "\n".join(rows)) + "\n", encoding="utf-8")
    (tmp_path / "test.tsv").write_text("\n".join(rows[:11]) + "\n", encoding="utf-8")
    main(["run", "--model", "avg", "--train", str(tmp_path / "train.tsv"), "--test",
          str(tmp_path / "test.tsv"), "--set", "tokenizer=vi-words", "--set",
          "epochs=1", "--results", str(tmp_path / "r"), "--save-model",
          str(tmp_path / "m")])
    (result,) = (tmp_path / "r").glob("run__avg__*-vi-words__s0.json")
    assert json.loads(result.read_text())["config"]["tokenizer"] == "vi-words"
    saved = load_model(tmp_path / "m")
    assert "giảng_viên" in saved.vocab.itos and "viên" not in saved.vocab.itos
    tokens, _ = saved.encode(["Giảng viên nhiệt tình"])
    assert saved.vocab.decode(tokens[0].tolist())[:2] == ["giảng_viên", "nhiệt_tình"]


def test_generated_feedback_flips_its_label_under_negation():
    from lamalib.data.datasets.vi_feedback import NEGATIVE, POSITIVE, vi_feedback

    data = vi_feedback("train", n=300, seed=5)
    assert vi_feedback("train", n=300, seed=5).texts == data.texts  # seeded
    for text, label, at, neg in zip(data.texts, data.labels,
                                    data.extras["opinion_position"],
                                    data.extras["negated"]):
        syllables = text.split()
        opinion = next(o for o in POSITIVE + NEGATIVE
                       if syllables[at:at + len(o.split())] == o.split())
        assert ("không" in syllables[:at]) == neg
        assert data.label_names[label] == (
            "positive" if (opinion in POSITIVE) != neg else "negative")


def test_a_segmenter_that_splits_a_syllable_is_recut_on_the_input():
    # "1." read as "1 ." by a segmenter: the input's syllables come back, the words'
    # boundaries kept where they fall between syllables
    assert vi._realign(["1.", "quyền", "tiếp", "cận"],
                       ["1", ".", "quyền", "tiếp_cận"]) == ["1.", "quyền", "tiếp_cận"]
    assert vi._realign(["a", "b"], ["a_b"]) == ["a_b"]
