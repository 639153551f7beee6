"""The drawing functions of the book's diagrams, one module per figure family, over one
style (``style``); ``book/figures/make_figures.py`` writes them as SVG files."""
