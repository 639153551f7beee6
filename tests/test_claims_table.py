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
