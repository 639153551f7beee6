"""A tiny generated corpus where one word has several senses (chapter "Word vectors").

Static word vectors give a word one vector whatever its sense. To see what that vector
becomes, we generate sentences where an ambiguous word (Vietnamese "đá": to kick / stone
/ ice, English "bank": money / river) appears in the contexts of each sense, next to an
unambiguous *anchor* word per sense that appears in the same contexts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from lamalib import runtime


@dataclass
class SenseInventory:
    """An ambiguous word, its senses, and per sense an anchor and context phrases."""

    word: str  # the ambiguous word, e.g. "đá"
    senses: dict[str, tuple[str, list[str]]]  # sense -> (anchor word, context phrases)
    fillers: list[str]  # sense-neutral words that appear everywhere

    @property
    def anchors(self) -> dict[str, str]:
        """sense -> its unambiguous anchor word."""
        return {sense: anchor for sense, (anchor, _) in self.senses.items()}


VIETNAMESE_DA = SenseInventory(
    word="đá",
    senses={
        "to kick": ("sút", ["cầu thủ", "quả bóng", "khung thành", "trận đấu", "ghi bàn",
                            "hậu vệ", "sân cỏ"]),
        "stone": ("sỏi", ["ngọn núi", "bức tường", "tảng lớn", "con suối", "xây nhà",
                          "rất cứng", "mặt đường"]),
        "ice": ("băng", ["ly nước", "trà", "tủ lạnh", "cà phê", "mùa hè", "mát lạnh",
                         "cục nhỏ"]),
    },
    fillers=["tôi", "anh", "hôm nay", "và", "của", "một", "có"],
)

ENGLISH_BANK = SenseInventory(
    word="bank",
    senses={
        "finance": ("lender", ["money", "loan", "account", "deposit", "interest rate",
                               "cash", "mortgage"]),
        "river": ("shore", ["river", "water", "fishing", "green grass", "boat", "mud",
                            "reeds"]),
    },
    fillers=["the", "a", "we", "today", "and", "of", "was"],
)


def sense_corpus(inventory: SenseInventory, n_sentences: int = 600, seed: int = 0,
                 anchor_share: float = 0.5) -> tuple[list[list[str]], list[str]]:
    """Generated sentences, each about one sense, and that sense per sentence.

    A sentence is a filler, a context phrase, the target, another context phrase and a
    filler. The target is the ambiguous word or, with probability ``anchor_share``, the
    sense's anchor, so anchor and ambiguous word share their contexts.

    Returns:
        ``(sentences, senses)``: token lists and the sense label of each.
    """
    rng = random.Random(runtime.seed(seed))  # shifted by LAMALIB_SEED
    names = list(inventory.senses)
    sentences, labels = [], []
    for _ in range(n_sentences):
        sense = rng.choice(names)
        anchor, phrases = inventory.senses[sense]
        target = anchor if rng.random() < anchor_share else inventory.word
        first, second = rng.sample(phrases, 2)
        words = [rng.choice(inventory.fillers), first, target, second,
                 rng.choice(inventory.fillers)]
        sentences.append(" ".join(words).split())
        labels.append(sense)
    return sentences, labels
