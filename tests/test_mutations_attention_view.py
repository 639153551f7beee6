"""The attention view (lamalib.viz.attention_view), cases that mutation testing found
unguarded: its JSON block holds no ``<``, ``>`` or ``&`` at all, and its static table
(self-attention) is the attention each token receives, a mean over the queries."""

import json
import re

import numpy as np

from lamalib.viz.attention_view import attention_view


def _data_block(page: str) -> str:
    return re.search(r'<script type="application/json" id="[^"]+">(.*?)</script>',
                     page, re.S).group(1)


def test_the_json_block_holds_no_angle_bracket_or_ampersand():
    tokens = ["<!--", "a&b", "</p>", "x<y", "&amp;"]
    weights = np.full((5, 5), 0.2)  # pooling: (H, T)
    page = attention_view(tokens, weights, "pooling")
    block = _data_block(page)
    for char in "<>&":
        assert char not in block, char
    assert json.loads(block)["tokens"] == tokens  # escaped, not changed


def test_the_static_self_table_averages_over_queries():
    # every query of the one head looks at token 0 only: token 0 receives 1,
    # the others 0 (a mean over keys would give each row's mean, 1/3 everywhere)
    weights = np.zeros((1, 1, 3, 3))
    weights[..., 0] = 1.0
    weights[0, 0, 2] = [0.0, 0.0, 1.0]  # but the last query looks at itself
    page = attention_view(["a", "b", "c"], weights, "self")
    table = re.search(r'<div class="lv-static">(.*?)</div>', page, re.S).group(1)
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td></tr>", table)
    assert rows == [("a", "0.667"), ("b", "0.000"), ("c", "0.333")]
