"""The book's diagrams: every figure directive points at an SVG that exists and parses,
has alt text, a name and a caption, stays readable at the book's width, and the SVGs
are exactly what ``book/figures/make_figures.py`` writes (so no one edits them by hand
and the script never drifts from the files)."""

import importlib.util
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
FIGURES = BOOK / "figures"
SVG_NS = "{http://www.w3.org/2000/svg}"
COLUMN_PX = 670  # content column of the built book in a 1280 px window (measured)
MIN_FONT_PX = 11  # smallest font size, as displayed there, of a label's main text
DIRECTIVE = re.compile(r"```\{figure\}[ \t]*(?P<path>\S*)[ \t]*\n(?P<body>.*?)```",
                       re.DOTALL)


def _pages():
    """(page, text) for every markdown cell of every chapter and every .md page."""
    for nb in sorted(BOOK.glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                yield nb, "".join(cell["source"])
    for page in sorted(BOOK.glob("*.md")):
        yield page, page.read_text(encoding="utf-8")


def _directives():
    found = []
    for page, text in _pages():
        for m in DIRECTIVE.finditer(text):
            options, caption = {}, []
            for line in m["body"].splitlines():
                opt = re.match(r"^:(\w+):\s*(.*)$", line)
                if opt and not caption:
                    options[opt[1]] = opt[2].strip()
                elif line.strip() or caption:
                    caption.append(line)
            found.append(dict(page=page, path=m["path"], options=options,
                              caption="\n".join(caption).strip()))
    return found


DIRECTIVES = _directives()


def _id(d):
    return f"{d['page'].name}:{d['path']}"


def _load_script():
    spec = importlib.util.spec_from_file_location("make_figures",
                                                  FIGURES / "make_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_book_has_figure_directives():
    assert len(DIRECTIVES) >= 10, [_id(d) for d in DIRECTIVES]


@pytest.mark.parametrize("d", DIRECTIVES, ids=_id)
def test_directive_has_name_alt_width_and_caption(d):
    opts = d["options"]
    assert opts.get("name", "").startswith("fig-"), f"{_id(d)}: :name: fig-..."
    assert len(opts.get("alt", "")) >= 40, f"{_id(d)}: :alt: must describe the figure"
    assert re.fullmatch(r"\d+(%|px)", opts.get("width", "")), f"{_id(d)}: :width:"
    assert d["caption"], f"{_id(d)}: no caption"


def test_figure_names_are_unique():
    names = [d["options"].get("name") for d in DIRECTIVES]
    assert len(names) == len(set(names)), names


@pytest.mark.parametrize("d", DIRECTIVES, ids=_id)
def test_equations_cited_in_a_caption_exist_on_its_page(d):
    labels = re.findall(r"\{eq\}`([^`]+)`", d["caption"])
    text = d["page"].read_text(encoding="utf-8")
    for label in labels:
        assert f"$$ ({label})" in text, (
            f"{_id(d)}: caption cites eq. {label}, which the page does not define")


@pytest.mark.parametrize("d", DIRECTIVES, ids=_id)
def test_svg_exists_parses_and_is_readable_at_book_width(d):
    path = (d["page"].parent / d["path"]).resolve()
    assert path.is_file(), f"{_id(d)}: {path} does not exist"
    assert path.suffix == ".svg" and path.parent == FIGURES, (
        f"{_id(d)}: diagrams are SVG files in book/figures/")
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG_NS}svg"
    assert root.find(f"{SVG_NS}title").text.strip()  # for screen readers too
    assert root.find(f"{SVG_NS}desc").text.strip()
    _, _, width, _ = map(float, root.get("viewBox").split())
    shown = d["options"]["width"]
    shown_px = (COLUMN_PX * float(shown[:-1]) / 100 if shown.endswith("%")
                else min(float(shown[:-2]), COLUMN_PX))
    sizes = [float(t.get("font-size")) for t in root.iter(f"{SVG_NS}text")]
    assert sizes, f"{path.name}: no text"
    assert min(sizes) * shown_px / width >= MIN_FONT_PX, (
        f"{path.name}: smallest font {min(sizes)} is "
        f"{min(sizes) * shown_px / width:.1f} px at {shown}")


def test_every_svg_in_figures_is_used_by_the_book():
    used = {(d["page"].parent / d["path"]).resolve().name for d in DIRECTIVES}
    on_disk = {p.name for p in FIGURES.glob("*.svg")}
    assert on_disk <= used, f"unused diagrams: {sorted(on_disk - used)}"


def test_script_regenerates_the_committed_svgs(tmp_path):
    written = _load_script().main(tmp_path)
    assert {p.name for p in written} == {p.name for p in FIGURES.glob("*.svg")}
    for new in written:
        old = FIGURES / new.name
        assert new.read_bytes() == old.read_bytes(), (
            f"{new.name} differs from what make_figures.py writes: run "
            "`python book/figures/make_figures.py` and commit the result")


def test_script_output_is_deterministic(tmp_path):
    script = _load_script()
    first = {p.name: p.read_bytes() for p in script.main(tmp_path / "a")}
    second = {p.name: p.read_bytes() for p in script.main(tmp_path / "b")}
    assert first == second


def test_math_markup_sets_subscripts_and_italics():
    spans = _load_script().style._tspans("$h_{t-1}$ + b", 14)
    root = ET.fromstring(f'<text xmlns="http://www.w3.org/2000/svg">{spans}</text>')
    runs = [(s.text, s.get("font-style"), s.get("font-size"), float(s.get("dy", 0)))
            for s in root]
    assert runs[0] == ("h", "italic", None, 0.0)  # a variable: italic, full size
    assert runs[1][:3] == ("t", "italic", "10.1") and runs[1][3] > 0  # subscript
    assert runs[2][:3] == ("\u22121", None, "10.1")  # a real minus, upright
    assert runs[3][:3] == (" + b", None, None)  # text outside $...$: upright
    assert sum(r[3] for r in runs) == 0  # back on the baseline
