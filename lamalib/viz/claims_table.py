"""A claims table as a reader sees it: one row per claim of a paper, the columns named
for the reader (chapters 8 and 10 and the Reproductions page show the same table)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

COLUMNS = {"text": "the paper says", "source": "where", "figure": "paper",
           "ours": "ours: A − B [95 % CI], p", "verdict": "verdict",
           "plain": "plain patience", "why": "readings and differences"}


def claims_table(claims: Sequence, plain: bool | None = None):
    """A styled table (a pandas ``Styler``) of ``claims``
    (:class:`lamalib.experiments.claims.Claim` rows), in the order given, without the
    paper and the p-value (the interval's text carries p). ``plain``: show the
    plain-patience column; by default only when some row has one. Long texts wrap, so
    the table fits the page's column."""
    frame = pd.DataFrame([{key: getattr(c, key) for key in COLUMNS} for c in claims],
                         columns=list(COLUMNS))
    if plain is None:
        plain = any(c.plain for c in claims)
    if not plain:
        frame = frame.drop(columns="plain")
    return (frame.rename(columns=COLUMNS).style.hide(axis="index")
            .set_properties(**{"white-space": "normal", "text-align": "left",
                               "vertical-align": "top"})
            .set_properties(subset=[COLUMNS["text"], COLUMNS["ours"]],
                            **{"max-width": "12em"})
            .set_properties(subset=[COLUMNS["why"]], **{"min-width": "8em"}))
