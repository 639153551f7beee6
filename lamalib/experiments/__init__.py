"""Experiments that reproduce the papers' tables: ``python -m lamalib.experiments``
(``run``, ``reproduce``, ``report``), results files with provenance, and the table
the book's "Reproductions" page renders (chapter "Reproductions"). Each name is
imported from its module on first use (``lamalib.lazy``): ``--help`` does not import
torch."""

from lamalib.lazy import lazy_names

_WHERE = {
    "PAPERS": "papers",
    **dict.fromkeys(["load_published", "load_results", "results_table"], "results"),
    "run": "runner",
    "RunSpec": "spec",
}
__getattr__, __dir__ = lazy_names(__name__, globals(), _WHERE)

__all__ = sorted(_WHERE)
