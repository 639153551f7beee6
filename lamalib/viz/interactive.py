"""A figure shown once, with controls that redraw it in place (chapters 2-4).

``ipywidgets.interact`` draws its figure inside an ``Output`` widget. An executed
notebook then keeps that PNG twice, as a cell output and again inside the saved widget
state, and a page that loads the widget JavaScript shows it once more for each copy.
Here the figure is one plain PNG display output, which the static book shows without
any script, and the widgets hold only the controls: moving one replaces that single
output through its display handle (in Jupyter and Colab).
"""

from __future__ import annotations

import io
from typing import Callable, Mapping

import matplotlib.pyplot as plt
from IPython.display import Image, display
from matplotlib.axes import Axes
from matplotlib.figure import Figure


def figure_png(fig: Figure) -> bytes:
    """``fig`` as PNG bytes, cropped as the inline backend crops; the figure is closed
    so that the inline backend does not show it a second time."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi="figure", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def render(draw: Callable[..., object], **kwargs) -> bytes:
    """Call ``draw(**kwargs)`` and return its figure as PNG bytes.

    ``draw`` returns a Figure or an Axes, or leaves its figure current; it must not
    call ``plt.show()``. Every figure it opened is closed afterwards.
    """
    before = set(plt.get_fignums())
    result = draw(**kwargs)
    if isinstance(result, Axes):
        result = result.figure
    fig = result if isinstance(result, Figure) else plt.gcf()
    png = figure_png(fig)
    for number in set(plt.get_fignums()) - before:
        plt.close(number)
    return png


class InteractiveFigure:
    """``draw(**values)`` shown as one PNG, redrawn when a control changes.

    Args:
        draw: draws one figure from keyword arguments (see :func:`render`).
        controls: argument name -> ipywidgets control; its ``value`` is passed.
        fixed: arguments passed unchanged on every draw.
    """

    def __init__(self, draw: Callable[..., object],
                 controls: Mapping[str, object] | None = None, **fixed) -> None:
        self.draw, self.controls, self.fixed = draw, dict(controls or {}), fixed
        self.handle = None

    def values(self) -> dict:
        """The keyword arguments of the next draw."""
        return {**self.fixed, **{k: w.value for k, w in self.controls.items()}}

    def png(self) -> bytes:
        return render(self.draw, **self.values())

    def show(self) -> None:
        """Display the figure once, then the controls (if any) below it."""
        self.handle = display(Image(self.png()), display_id=True)
        if self.controls:
            from ipywidgets import HBox, Layout

            for control in self.controls.values():
                control.observe(self.redraw, names="value")
            display(HBox(list(self.controls.values()),
                         layout=Layout(flex_flow="row wrap")))

    def redraw(self, change=None) -> None:
        """Replace the displayed figure with one drawn from the current values."""
        if self.handle is not None:
            self.handle.update(Image(self.png()))


def interactive_figure(draw: Callable[..., object],
                       controls: Mapping[str, object] | None = None,
                       **fixed) -> InteractiveFigure:
    """Show ``draw``'s figure for the controls' current values, then the controls.

    The replacement for ``ipywidgets.interact`` in the book: the static page shows
    the figure exactly once, and a live notebook redraws it in place.
    """
    view = InteractiveFigure(draw, controls, **fixed)
    view.show()
    return view
