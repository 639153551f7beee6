"""Experiments that reproduce the papers' tables: ``python -m lamalib.experiments``
(``run``, ``reproduce``, ``report``), results files with provenance, and the table
the book's "Reproductions" page renders (chapter "Reproductions")."""

from .papers import PAPERS
from .results import load_published, load_results, results_table
from .runner import run
from .spec import RunSpec

__all__ = ["PAPERS", "RunSpec", "load_published", "load_results", "results_table",
           "run"]
