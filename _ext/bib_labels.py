"""Bibliography labels that read like the book's citations (a Sphinx extension of the
book, loaded by _config.yml): the text cites "Guo et al., 2020" (sphinxcontrib-bibtex's
author_year style), so the references page labels that entry "Guo et al., 2020" too,
not pybtex's default "[GQL+20]". The rule is the citations' own: one author's last
name, two joined by "and", three or more as the first's "et al.", then the year.
"""

from __future__ import annotations

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle

NAME = "authoryear"  # bibtex_default_style in _config.yml


def _last(person) -> str:
    """A person's last name as the citations print it: the von part kept ("van der
    Maaten"), LaTeX accents as the letters they stand for ("{\\v{R}}eh{\\r{u}}{\\v{r}}ek"
    is "Řehůřek"), braces off."""
    return " ".join(part.render_as("text") for part in
                    person.rich_prelast_names + person.rich_last_names)


def author_year_label(entry) -> str:
    """``"Guo et al., 2020"``: the label of one pybtex entry, as the text cites it."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    year = entry.fields.get("year", "n.d.")
    if not persons:
        return f"{entry.fields.get('organization', entry.key)}, {year}"
    names = [_last(p) for p in persons]
    who = (names[0] if len(names) == 1 else f"{names[0]} and {names[1]}"
           if len(names) == 2 else f"{names[0]} et al.")
    return f"{who}, {year}"


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            yield author_year_label(entry)


class AuthorYearStyle(UnsrtStyle):
    default_label_style = AuthorYearLabels
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.formatting", NAME, AuthorYearStyle)


def setup(app):
    return {"parallel_read_safe": True, "parallel_write_safe": True}
