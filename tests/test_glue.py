"""lamalib.viz.glue writes exactly the record myst-nb's own glue writes (the book build
reads it), turns tensors into numbers, refuses what it cannot format, and is a no-op
outside IPython."""

import IPython
import IPython.display
import numpy as np
import pytest
import torch

from lamalib.viz import glue

myst_glue = pytest.importorskip("myst_nb.ext.glue")


def _capture(monkeypatch, target, attr):
    calls = []
    monkeypatch.setattr(target, attr, lambda obj, **kw: calls.append((obj, kw)))
    return calls


@pytest.mark.parametrize("value", [0.6162, 13, "beam 4"])
def test_the_record_is_myst_nbs(monkeypatch, value):
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    ours = _capture(monkeypatch, IPython.display, "display")
    theirs = _capture(monkeypatch, myst_glue, "ipy_display")
    assert glue("x", value) is None  # nothing printed when it ends a cell
    myst_glue.glue("x", value if not isinstance(value, str) else value, display=False)
    (o_bundle, o_kw), (t_bundle, t_kw) = ours[0], theirs[0]
    assert o_kw["metadata"]["scrapbook"] == t_kw["metadata"]["scrapbook"]
    key = myst_glue.GLUE_PREFIX + "text/plain"
    assert o_bundle == t_bundle and o_bundle[key] == repr(value)


@pytest.mark.parametrize("value", ["6,236", "3e-05, 0.0001 and 0.0003", "'.', 'the'",
                                   "beam 4", "none", 'say "no"', "0.25"])
def test_a_glued_string_renders_in_the_book_exactly_as_given(monkeypatch, value):
    # the book build formats a {glue:text} role's record with myst-nb's
    # format_plain_text; a string must come back unchanged, not as a tuple
    from myst_nb.core.variables import format_plain_text

    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    calls = _capture(monkeypatch, IPython.display, "display")
    glue("x", value)
    assert format_plain_text(calls[0][0][myst_glue.GLUE_PREFIX + "text/plain"], "") \
        == value


def test_a_glued_number_formats_in_the_book(monkeypatch):
    from myst_nb.core.variables import format_plain_text

    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    calls = _capture(monkeypatch, IPython.display, "display")
    glue("x", 92895)
    glue("y", 0.6162)
    texts = [c[0][myst_glue.GLUE_PREFIX + "text/plain"] for c in calls]
    assert format_plain_text(texts[0], ",d") == "92,895"
    assert format_plain_text(texts[1], ".1%") == "61.6%"


def test_tensors_and_numpy_scalars_become_numbers(monkeypatch):
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    calls = _capture(monkeypatch, IPython.display, "display")
    glue("t", torch.tensor(0.25))
    glue("n", np.float64(0.5))
    glue("i", np.int64(3))
    assert [c[0][glue.__globals__["GLUE_PREFIX"] + "text/plain"] for c in calls] == [
        "0.25", "0.5", "3"]


@pytest.mark.parametrize("bad", [torch.ones(2), [1, 2], True, None])
def test_what_cannot_be_formatted_is_refused(bad):
    with pytest.raises(TypeError, match="glue"):
        glue("bad", bad)


def test_outside_ipython_it_does_nothing(monkeypatch):
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    calls = _capture(monkeypatch, IPython.display, "display")
    assert glue("x", 1.5) is None and calls == []
