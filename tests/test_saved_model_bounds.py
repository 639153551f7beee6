"""A saved model reads a bounded number of tokens (issue 52): a longer text is cut to
the model's limit with one warning, never read whole into a T x T attention or past a
learned position table; and a failure inside the model is not reported as "no
attention weights"."""

import warnings

import pytest
import torch

from lamalib.data import Vocab
from lamalib.data.batching import LONG_TEXT_LIMIT, LongTextWarning
from lamalib.models import build_model
from lamalib.models.saved import NoAttention, load_model, save_model

TEXTS = ["a warm and funny film", "a dull , tedious mess"]
TE = dict(d_model=8, n_heads=2, n_layers=1, d_ff=16)
LE = dict(embed_dim=8, hidden_size=4, heads=3, mlp_size=8, max_positions=6)


def _saved(tmp_path, name, options, max_len=None):
    vocab = Vocab.build(TEXTS)
    torch.manual_seed(0)
    model = build_model(name, vocab_size=len(vocab), num_classes=2, **options)
    folder = save_model(model, vocab, ["neg", "pos"], tmp_path / name, name=name,
                        options=options, max_len=max_len)
    return load_model(folder)


def _cut_warnings(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in seen
                    if issubclass(w.category, LongTextWarning)]


def test_a_text_past_max_len_is_cut_with_one_warning(tmp_path):
    saved = _saved(tmp_path, "te", TE, max_len=3)
    (tokens, _), said = _cut_warnings(
        lambda: saved.encode(["a warm and funny film", "a dull , tedious mess"]))
    assert tokens.shape == (2, 3)
    assert len(said) == 1 and "2 texts longer than 3 tokens" in said[0]
    _, said = _cut_warnings(lambda: saved.encode(["a warm film"]))
    assert said == []


def test_a_model_saved_without_max_len_still_has_a_limit(tmp_path, monkeypatch):
    saved = _saved(tmp_path, "te", TE)
    assert saved.max_len is None  # as the run kept it: texts whole up to the bound
    assert saved.limit == LONG_TEXT_LIMIT
    long = " ".join(["film"] * (LONG_TEXT_LIMIT + 5))
    (tokens, _), said = _cut_warnings(lambda: saved.encode([long]))
    assert tokens.shape == (1, LONG_TEXT_LIMIT) and len(said) == 1


def test_learned_positions_bound_the_text(tmp_path):
    saved = _saved(tmp_path, "le", LE)  # 6 learned positions, no max_len
    assert saved.limit == 6
    (probs, said) = _cut_warnings(lambda: saved.predict(["a warm and funny film ."
                                                         " a dull , tedious mess"]))
    assert len(probs) == 1 and len(said) == 1 and "cut to 6" in said[0]


def test_attention_takes_a_shorter_limit(tmp_path):
    saved = _saved(tmp_path, "te", TE)
    att, said = _cut_warnings(lambda: saved.attention("a warm and funny film",
                                                      max_len=2))
    assert att.weights.shape[-1] == 2 and len(att.tokens) == 2 and len(said) == 1


def test_an_error_inside_the_model_is_not_called_no_attention(tmp_path, monkeypatch):
    saved = _saved(tmp_path, "te", TE)

    def broken(*args, **kwargs):
        raise RuntimeError("CUDA out of memory (simulated)")

    monkeypatch.setattr(saved.model, "forward", broken)
    with pytest.raises(RuntimeError, match="out of memory") as caught:
        saved.attention("a warm film")
    assert not isinstance(caught.value, NoAttention)


def test_a_model_without_attention_still_says_so(tmp_path):
    saved = _saved(tmp_path, "avg", dict(embed_dim=8))
    with pytest.raises(NoAttention, match="'avg' has no attention"):
        saved.attention("a warm film")


def test_the_attention_command_cuts_to_max_len(tmp_path, capsys):
    from lamalib.experiments.cli import main

    folder = tmp_path / "te"
    _saved(tmp_path, "te", TE)
    with pytest.warns(LongTextWarning, match="cut to 2"):
        main(["attention", "--model", str(folder), "a warm and funny film",
              "--max-len", "2"])
    rows = capsys.readouterr().out.splitlines()[2:]
    assert [r.split("\t")[0] for r in rows] == ["a", "warm"]
