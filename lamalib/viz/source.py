"""``show_source``: chapters show the library's real code instead of copying it."""

from __future__ import annotations

import inspect
import textwrap

from IPython.display import Code


def source_of(obj: object) -> str:
    """The source text of a library class, function or method, dedented."""
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (TypeError, OSError) as err:
        raise TypeError(
            f"no source available for {obj!r}: pass a class or function"
        ) from err


def show_source(obj: object) -> Code:
    """Render ``obj``'s source with syntax highlighting (HTML, works in the static
    book).

    The module path is shown first, so the reader knows where the code lives.
    """
    module = inspect.getmodule(obj)
    header = f"# {module.__name__}" if module else ""
    return Code(f"{header}\n{source_of(obj)}".lstrip(), language="python")
