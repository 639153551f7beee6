"""The claims table the chapters and the Reproductions page show (lamalib.viz)."""

from lamalib.experiments.claims import Claim
from lamalib.viz import claims_table


def _claim(plain=""):
    return Claim("msa", "A beats B by 1 point", "Table 1", "+1", "+0.5 [-1.0, +2.0], "
                 "p = 0.4", "inconclusive", "a reading", plain, 0.4)


def test_columns_named_for_the_reader_in_order():
    frame = claims_table([_claim(), _claim("the same")]).data
    assert list(frame.columns) == ["the paper says", "where", "paper",
                                   "ours: A − B [95 % CI], p", "verdict",
                                   "plain patience", "readings and differences"]
    assert frame.iloc[0]["verdict"] == "inconclusive"
    assert frame.iloc[1]["plain patience"] == "the same"


def test_plain_column_only_when_a_row_has_one_or_asked():
    assert "plain patience" not in claims_table([_claim()]).data.columns
    assert "plain patience" not in claims_table([_claim("x")], plain=False).data.columns
    assert "plain patience" in claims_table([_claim()], plain=True).data.columns


def test_long_texts_wrap():
    html = claims_table([_claim()]).to_html()
    assert "white-space: normal" in html and "max-width: 12em" in html


def _cell_css(styler) -> dict:
    """{column name: {CSS property: value}} as the rendered HTML sets them on that
    column's cells, the same on every row (asserted)."""
    import re

    html = styler.to_html()
    per_cell: dict = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", html):
        props = dict(p.split(":", 1) for p in body.split(";") if ":" in p)
        props = {k.strip(): v.strip() for k, v in props.items()}
        for sel in re.findall(r"_row(\d+)_col(\d+)", selectors):
            per_cell.setdefault(tuple(map(int, sel)), {}).update(props)
    columns = list(styler.data.columns)
    css = {}
    for (row, col), props in per_cell.items():
        name = columns[col]
        assert css.setdefault(name, props) == props, f"{name}: row {row} differs"
    return css


def test_column_widths_keep_the_table_inside_the_page_column():
    """The widths the layout check of the built chapters settled on: the paper's claim
    and our interval wrap at 12em, the readings column gets at least 8em (at 10em the
    table was wider than the page's column), and no other column asks for a width."""
    css = _cell_css(claims_table([_claim("x"), _claim("y")]))
    widths = {name: {k: v for k, v in props.items() if k.endswith("width")}
              for name, props in css.items()}
    assert widths == {"the paper says": {"max-width": "12em"}, "where": {}, "paper": {},
                      "ours: A − B [95 % CI], p": {"max-width": "12em"}, "verdict": {},
                      "plain patience": {}, "readings and differences":
                      {"min-width": "8em"}}
    assert all(props["white-space"] == "normal" for props in css.values())
