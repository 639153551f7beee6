"""A number in a chapter's prose that a run produced is inserted from the run with
``glue`` (DESIGN, "What a notebook asserts"), never typed: a decimal number in a
markdown cell must be a ``{glue:text}`` role, sit next to a ``{cite}`` of the paper it
quotes, or be one of a chapter's few constants listed here (a setting the page fixes,
not an outcome). Every glue role names a value that a code cell of its page glues."""

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
DECIMAL = re.compile(r"(?<![\w.\-])\d+\.\d+(?![\w.])")
# "section 3.2", "Table 4.1", "eq. 2.3", "Figure 1.5": a place in a paper, not a number
PLACE = re.compile(r"(?:section|sections|table|eq\.|equation|figure|fig\.|§)\s*$",
                   re.IGNORECASE)
CITATION_REACH = 120  # characters either side of a number that a {cite} may be
GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}`([^`:]+)(?::[^`]*)?`")
GLUE_CALL = re.compile(r"""\bglue\(\s*(?:f?["'])([^"']+)["']""")

# Settings a page states (a learning rate it chose, a paper's hyperparameter that the
# page cites once): {notebook: {number, ...}}. Keep it short: an outcome never goes here.
CONSTANTS: dict[str, set[str]] = {
    "06_transformer.ipynb": {"0.95"},  # the threshold of a "confident" top probability
    # ln 5, the loss of a uniform guess over 5 classes; the family-wise level of Holm
    "reproductions.ipynb": {"1.61", "0.05"},
    "10_multiscale.ipynb": {"0.1", "0.3"},  # dropout rates the runs were given
    "appendix_msa.ipynb": {"0.1", "0.3"},  # dropout rates the runs were given
    "08_lama.ipynb": {"0.1"},  # a SAN penalty weight the page names (a setting)
    "appendix_lama.ipynb": {"0.1"},  # the same SAN penalty weight, on its appendix
}


def _strip(text: str) -> str:
    """Markdown without code, math, links, directive options and glue roles."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = GLUE_ROLE.sub(" GLUED ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"(?<!\\)\$[^$\n]*\$", " ", text)
    text = re.sub(r"\]\([^)]*\)|https?://\S+", " ", text)
    return re.sub(r"^:\w+:.*$", " ", text, flags=re.M)


def typed_numbers(notebook: Path) -> list[str]:
    """'cell N: 0.62 | context' for each decimal typed in a markdown cell."""
    allowed = CONSTANTS.get(notebook.name, set())
    found = []
    for index, cell in enumerate(json.loads(notebook.read_text())["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = _strip("".join(cell["source"]))
        for m in DECIMAL.finditer(text):
            before = text[max(0, m.start() - CITATION_REACH): m.start()]
            after = text[m.end(): m.end() + CITATION_REACH]
            if (m.group() in allowed or PLACE.search(before[-12:])
                    or "{cite" in before or "{cite" in after):
                continue
            context = text[max(0, m.start() - 50): m.end() + 30].replace("\n", " ")
            found.append(f"cell {index}: {m.group()} | {context}")
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_no_typed_run_number_in_prose(notebook):
    typed = typed_numbers(notebook)
    assert not typed, (f"{notebook.name}: numbers typed in the prose; glue them from "
                       "the run (or cite the paper they quote):\n" + "\n".join(typed))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_every_glue_role_has_a_glued_value(notebook):
    cells = json.loads(notebook.read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    glued = set(GLUE_CALL.findall(code))
    roles = {name for c in cells if c["cell_type"] == "markdown"
             for name in GLUE_ROLE.findall("".join(c["source"]))}
    assert roles <= glued, f"{notebook.name}: roles with no glue(...): {roles - glued}"


def test_the_check_finds_a_typed_number_and_passes_glue_and_citations(tmp_path):
    nb = tmp_path / "x.ipynb"
    cells = [{"cell_type": "markdown", "source": [source]} for source in (
        "Negation reached 0.62 here.",  # typed: found
        "Negation reached {glue:text}`neg:.2f` here.",
        "The paper reports 93.9% {cite:p}`lama`.",
        "As section 3.2 says, $\\alpha = 0.5$ and `lr=0.05`.")]
    nb.write_text(json.dumps({"cells": cells}))
    assert [t.split(" | ")[0] for t in typed_numbers(nb)] == ["cell 0: 0.62"]
