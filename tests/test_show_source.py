"""``show_source`` shows a function, a method or a range of lines of one, with the
equation it implements beside the header; its header names the module, the object and
the lines of the file, as the file has them."""

import inspect

import pytest

from lamalib.nn.attention.scores import AdditiveScore
from lamalib.viz import show_source, source_of
from lamalib.viz.source import WIDTH

NAME = "lamalib.nn.attention.scores.additive.AdditiveScore.forward"


def _split(code) -> tuple[list[str], list[str]]:
    """(header lines, code lines) of a listing: the header names the object, then
    maybe its lines, maybe the equation."""
    rows = code.data.splitlines()
    n = next(i for i, row in enumerate(rows) if not (
        row.startswith(("# lamalib.", "#   lines ")) or (i and row.startswith("#  ")
                                                      and row.endswith(")"))))
    return rows[:n], rows[n:]


def test_a_whole_function_with_its_name_and_module():
    head, body = _split(show_source(AdditiveScore.forward))
    assert head == [f"# {NAME}"]
    assert "\n".join(body) == source_of(AdditiveScore.forward).rstrip("\n")


def test_a_range_of_lines_by_number_and_by_text_gives_the_files_lines():
    lines, start = inspect.getsourcelines(AdditiveScore.forward)
    whole = source_of(AdditiveScore.forward).splitlines()
    head, body = _split(show_source(AdditiveScore.forward, lines=(2, 3)))
    assert " ".join(head).endswith(f"lines {start + 1}-{start + 2}")
    # the shown lines are the file's lines start+1 .. start+2, dedented
    assert [b.strip() for b in body] == [lines[1].strip(), lines[2].strip()]
    assert not body[0].startswith(" ")
    # by text: from the line that holds the first piece to the one that holds the last
    head, body = _split(show_source(AdditiveScore.forward,
                                    lines=("def forward", whole[-1].strip())))
    assert body == whole
    assert " ".join(head).endswith(f"lines {start}-{start + len(whole) - 1}")
    # one line: the first line that holds the text, looked for from the first on
    _, body = _split(show_source(AdditiveScore.forward, lines=(2, whole[-1].strip())))
    assert len(body) == len(whole) - 1


def test_the_equation_number_stands_at_the_right_of_the_header():
    head, _ = _split(show_source(AdditiveScore.forward, lines=(1, 2), eq=7))
    assert head[0].startswith(f"# {NAME}")
    assert head[-1].endswith("eq. (7)") and len(head[-1]) == WIDTH
    assert all(len(h) <= WIDTH for h in head)
    short, _ = _split(show_source(source_of, eq="3a"))
    assert short == ["# lamalib.viz.source.source_of".ljust(WIDTH - 8) + "eq. (3a)"]


@pytest.mark.parametrize("lines, message", [
    ((0, 2), "outside"), ((1, 10_000), "outside"), (("no such text here", 3), "contains"),
    ((3, 1), "before the first")])
def test_a_range_outside_the_object_is_one_clear_error(lines, message):
    with pytest.raises(ValueError, match=message):
        show_source(AdditiveScore.forward, lines=lines)
