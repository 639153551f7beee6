"""interactive_figure: the figure is displayed once, never kept inside widget state, and
redrawn in place when a control moves."""

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from IPython.display import Image  # noqa: E402

import lamalib.viz.interactive as interactive  # noqa: E402
from lamalib.viz import interactive_figure  # noqa: E402
from lamalib.viz.interactive import render  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def draw(n=2, title="t"):
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot(range(n))
    ax.set_title(title)
    return fig


class Handle:
    def __init__(self):
        self.updates = []

    def update(self, obj):
        self.updates.append(obj)


@pytest.fixture
def shown(monkeypatch):
    """Record what interactive_figure displays instead of sending it to a kernel."""
    calls = []

    def fake_display(obj, display_id=None):
        calls.append(obj)
        return Handle() if display_id else None

    monkeypatch.setattr(interactive, "display", fake_display)
    return calls


def test_render_returns_the_png_and_leaves_no_figure_open():
    plt.close("all")
    png = render(draw, n=3)
    assert png.startswith(b"\x89PNG")
    assert plt.get_fignums() == []  # the inline backend has nothing to show again
    # a draw function that returns nothing: its current figure is taken
    assert render(lambda: plt.plot([0, 1])).startswith(b"\x89PNG")
    assert plt.get_fignums() == []


def test_the_figure_is_displayed_once_and_controls_hold_no_image(shown):
    widgets = pytest.importorskip("ipywidgets")
    slider = widgets.IntSlider(value=2, min=2, max=5)
    view = interactive_figure(draw, {"n": slider}, title="fixed")
    images = [obj for obj in shown if isinstance(obj, Image)]
    assert len(images) == 1 and images[0].data == render(draw, n=2, title="fixed")
    (box,) = [obj for obj in shown if not isinstance(obj, Image)]
    assert list(box.children) == [slider]  # no Output widget that would capture a PNG
    state = json.dumps(widgets.Widget.get_manager_state(widgets=[box]))
    assert "image/png" not in state
    slider.value = 4  # a live notebook: the one output is replaced, nothing is added
    assert len(shown) == 2 and len(view.handle.updates) == 1
    assert view.handle.updates[0].data == render(draw, n=4, title="fixed")


def test_without_controls_only_the_figure_is_shown(shown):
    interactive_figure(draw, n=3)
    assert len(shown) == 1 and isinstance(shown[0], Image)


@pytest.mark.parametrize("name", ["02_word_vectors.ipynb", "04_attention.ipynb"])
def test_chapters_do_not_draw_figures_inside_widgets(name):
    # interact / interactive / interactive_output capture the figure in an Output
    # widget, whose saved state repeats the PNG on the built page.
    cells = json.loads((ROOT / "book" / name).read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for call in ("interact(", "interactive(", "interactive_output(", "Output("):
        assert f"widgets.{call}" not in code, f"{name} uses widgets.{call}"
