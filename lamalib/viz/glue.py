"""Numbers from a run, inserted into a chapter's prose (DESIGN, "What a notebook
asserts"): ``glue("negation", acc)`` in a code cell, ``{glue:text}`negation:.2f``` in
the text, so the text says what this run printed on any machine and seed.

The record is myst-nb's (the book build reads it from the cell's outputs); it is written
here without importing myst-nb, which Colab does not have. Outside a notebook, or where
no IPython runs, it does nothing.
"""

from __future__ import annotations

import numbers

GLUE_PREFIX = "application/papermill.record/"  # myst-nb's key for a hidden glued value


def glue(name: str, value) -> None:
    """Record ``value`` (a number, or a string) under ``name`` for ``{glue:text}`` roles.

    Tensors and NumPy scalars are turned into Python numbers first, so ``:.2f`` and
    ``:d`` formats work on them. Returns None, as myst-nb's own ``glue`` does, so a glue
    on a cell's last line prints nothing on the page.
    """
    if hasattr(value, "item") and getattr(value, "ndim", 0) == 0:
        value = value.item()  # a 0-d tensor or NumPy scalar
    if isinstance(value, bool) or not isinstance(value, (numbers.Number, str)):
        raise TypeError(f"glue({name!r}, ...) takes a number or a string, "
                        f"not {type(value).__name__}")
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # no IPython: nothing to record into
        return
    if get_ipython() is None:
        return
    # repr, as myst-nb's own glue: the book build literal_evals the text back, so a
    # string comes out exactly as given ("6,236" unquoted would read as a tuple)
    text = repr(value)
    display({GLUE_PREFIX + "text/plain": text}, raw=True,
            metadata={"scrapbook": {"name": name, "mime_prefix": GLUE_PREFIX}})
