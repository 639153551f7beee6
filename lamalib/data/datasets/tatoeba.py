"""The English-Vietnamese Tatoeba pairs shipped with lamalib (chapter "Attention
mechanisms", section "Attention on real sentences").

``tatoeba_en_vi.txt``: 3,311 ``English<TAB>Vietnamese`` pairs, short to long, as
manythings.org distributes Tatoeba's sentences (https://www.manythings.org/anki/,
``vie-eng.zip``; from https://tatoeba.org). Licence: CC-BY 2.0 FR; credit: Tatoeba and
its contributors (data/README.md). Two lines are not NFC in the original; the loader
normalises them.
"""

from __future__ import annotations

from pathlib import Path

from lamalib.data.parallel import ParallelPairs, read_pairs

TATOEBA_EN_VI = Path(__file__).with_name("tatoeba_en_vi.txt")
TATOEBA_SHA256 = "11fc08184b47b37aba15e614c7f46061cc832b011b3a7277c633fbd09a2e01c5"
TATOEBA_CREDIT = ("Tatoeba (tatoeba.org) English-Vietnamese pairs via manythings.org, "
                  "CC-BY 2.0 FR")


def tatoeba_en_vi() -> ParallelPairs:
    """The 3,311 shipped English -> Vietnamese pairs (NFC), in the file's order."""
    return read_pairs(TATOEBA_EN_VI)


__all__ = ["TATOEBA_CREDIT", "TATOEBA_EN_VI", "TATOEBA_SHA256", "tatoeba_en_vi"]
