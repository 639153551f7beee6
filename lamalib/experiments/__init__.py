"""Experiments that reproduce the papers' tables: ``python -m lamalib.experiments``
(``run``, ``reproduce``, ``report``), results files with provenance, and the table
the book's "Reproductions" page renders (chapter "Reproductions")."""

from lamalib.experiments.papers import PAPERS
from lamalib.experiments.results import load_published, load_results, results_table
from lamalib.experiments.runner import run
from lamalib.experiments.spec import RunSpec

__all__ = ["PAPERS", "RunSpec", "load_published", "load_results", "results_table",
           "run"]
