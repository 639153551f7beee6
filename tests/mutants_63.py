"""The mutants of the book's own checks named in issue 63 item 9 (the layout check, the
references page's labels, the claims table's widths, the attention-distance figure,
tools/seed_sweep.py): each applied, the test meant to kill it run, and reverted.
    python tests/mutants_63.py [NAME ...]
The layout mutants build a small book (`make book`, Chromium): run them where the book
builds.
"""
import sys

from mutants import run

LAYOUT = ("tests/test_layout_browser.py::"
          "test_the_check_finds_a_wide_table_a_shrunk_figure_and_a_missing_image")
BIB = ("tests/test_bibliography.py::"
       "test_labels_keep_the_von_part_the_editors_and_the_accents")
SWEEP = "tests/test_seed_sweep.py"
M = [
 ("layout: an output scrolling in a narrower box missed", "tools/check_layout.py",
  "const wide = el => el.scrollWidth > el.clientWidth + 1 || el.scrollWidth > width + 1",
  "const wide = el => el.scrollWidth > width + 1", LAYOUT),
 ("layout: tables inside code input measured as tables", "tools/check_layout.py",
  '  if (table.closest(".cell_input")) continue;\n', "", LAYOUT),
 ("labels: the von part dropped", "_ext/bib_labels.py",
  "person.rich_prelast_names + person.rich_last_names", "person.rich_last_names", BIB),
 ("labels: an editor-only entry labelled by its key", "_ext/bib_labels.py",
  'entry.persons.get("author") or entry.persons.get("editor") or []',
  'entry.persons.get("author") or []', BIB),
 ("labels: LaTeX accents left as written", "_ext/bib_labels.py",
  'return " ".join(part.render_as("text") for part in\n'
  '                    person.rich_prelast_names + person.rich_last_names)',
  'return " ".join(person.prelast_names + person.last_names)', BIB),
 ("claims table: the readings column's width back to 10em", "lamalib/viz/claims_table.py",
  '**{"min-width": "8em"}', '**{"min-width": "10em"}', "tests/test_claims_table.py"),
 ("claims table: our interval's column not wrapped", "lamalib/viz/claims_table.py",
  'subset=[COLUMNS["text"], COLUMNS["ours"]]', 'subset=[COLUMNS["text"]]',
  "tests/test_claims_table.py"),
 ("attention distance: the untrained line reversed", "lamalib/viz/attention_distance.py",
  "(before / before.sum()).tolist()", "(before / before.sum()).flip(0).tolist()",
  "tests/test_viz_attention_distance.py"),
 ("seed sweep: a later pass of a loop overwrites a failure", "tools/seed_sweep.py",
  '        if checks.get(r["id"]) in ("fail", "error"):\n            continue\n', "", SWEEP),
 ("seed sweep: asserts in a class body not instrumented", "tools/seed_sweep.py",
  "        self.generic_visit(node)     # are checks", "        pass  # are checks", SWEEP),
]
if __name__ == "__main__":
    raise SystemExit(1 if run(M, sys.argv[1:]) else 0)
