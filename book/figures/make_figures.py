"""Draw the book's diagrams of mechanisms as plain SVG files in this folder.

Run ``python book/figures/make_figures.py`` from the repository root (or anywhere:
the output folder defaults to this file's folder). The script needs only the standard
library, and its output is deterministic (no dates, no random ids), so
``tests/test_figures.py`` can check that the committed SVGs are exactly what it writes.

One module per figure family in ``diagrams/`` (``recurrent``: chapter 3's cells;
``attention``: chapters 4-5; ``transformer``: chapter 6; ``research``: chapters 7-9;
``roadmap``: the intro's map), all drawn over ``diagrams/style.py``, so there is one
visual style for every figure: the font (``FONT``), the palette (``KINDS``: one fill
and stroke per kind of thing, e.g. inputs blue, states green, gates orange), rounded
boxes, round operator nodes and one arrowhead. Math in labels uses a small markup:
``$...$`` is math (Latin and Greek letters italic), ``_{...}`` a subscript, ``^{...}`` a
superscript. The shape letters (B, T, D, H, Dh, ...) are those of
``lamalib/__init__.py``. Each figure's equations follow the chapter and the library
code that it pictures; the function's docstring names them.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the drawing modules in diagrams/, wherever this runs from

from diagrams import attention, recurrent, research, roadmap, style, transformer  # noqa: E402

FIGURES = {  # file name (without .svg): drawing function, in the book's order
    "rnn_unrolled": recurrent.rnn_unrolled,
    "lstm_cell": recurrent.lstm_cell,
    "gru_cell": recurrent.gru_cell,
    "seq2seq_attention": attention.seq2seq_attention,
    "sdpa": attention.sdpa,
    "multihead": attention.multihead,
    "positional_encoding": transformer.positional_encoding,
    "post_pre_ln": transformer.post_pre_ln,
    "transformer_layers": transformer.transformer_layers,
    "lama": research.lama,
    "roadmap": roadmap.roadmap,
    "multiscale_bands": research.multiscale_bands,
    "pair_classifier": research.pair_classifier,
    "patterns_pipeline": research.patterns_pipeline,
}


def main(out_dir: Path = HERE) -> list[Path]:
    """Write every figure as ``out_dir / <name>.svg``; returns the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in FIGURES.items():
        path = out_dir / f"{name}.svg"
        path.write_text(draw().svg(), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(p)
