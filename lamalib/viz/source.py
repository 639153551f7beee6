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


WIDTH = 80  # the course's line length: the equation number stands at its right edge


def _line(lines: list[str], where: int | str, after: int, name: str) -> int:
    """Index into ``lines`` of ``where``: a 1-based line number of the listing, or the
    first line at or after ``after`` that contains the text ``where``."""
    if isinstance(where, str):
        for i in range(after, len(lines)):
            if where in lines[i]:
                return i
        raise ValueError(f"no line of {name} from line {after + 1} on contains "
                         f"{where!r}")
    if not 1 <= where <= len(lines):
        raise ValueError(f"line {where} is outside {name}'s {len(lines)} lines")
    return where - 1


def show_source(obj: object, lines: tuple[int | str, int | str] | None = None,
                eq: int | str | None = None) -> Code:
    """Render ``obj``'s source (a class, function or method) with syntax highlighting
    (HTML, works in the static book).

    ``lines=(first, last)`` shows only those lines of it, both included: each a line
    number counted from the object's first line (1) or a piece of text, the first line
    that contains it (``last`` is looked for from ``first`` on), so that a chapter shows
    the ten lines that implement an equation, not the whole class, and the listing
    follows the code when lines are added above. ``eq`` puts the equation's number
    beside the listing's header (``eq=7`` or ``eq="7a"``: "eq. (7)").

    The header names where the code lives (module and name, and the lines of the
    file), so the reader can open it.
    """
    text = source_of(obj)
    module = inspect.getmodule(obj)
    qualname = getattr(obj, "__qualname__", getattr(obj, "__name__", ""))
    name = ".".join(part for part in (module.__name__ if module else "", qualname)
                    if part)
    label = f"eq. ({eq})" if eq is not None else ""
    room = WIDTH - (len(label) + 2 if label else 0)  # the header's width before it
    header = [f"# {name}"] if name else ["#"]
    if lines is not None:
        rows = text.splitlines()
        first = _line(rows, lines[0], 0, name)
        last = _line(rows, lines[1], first, name)
        if last < first:
            raise ValueError(f"lines {lines}: the last comes before the first")
        text = textwrap.dedent("\n".join(rows[first:last + 1])) + "\n"
        try:
            start = inspect.getsourcelines(obj)[1]
        except (OSError, TypeError):
            start = None
        if start is not None:
            where = f"lines {start + first}-{start + last}"
            if len(header[-1]) + 2 + len(where) <= room:
                header[-1] += f", {where}"
            else:  # a long name: the lines on a line of their own
                header.append(f"#   {where}")
    if label:
        if len(header[-1]) > room:
            header.append("#")
        header[-1] = header[-1].ljust(WIDTH - len(label)) + label
    header = "\n".join(header)
    return Code(f"{header}\n{text}".lstrip(), language="python")
