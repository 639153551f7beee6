"""``load_dataset(name, split)``: every labelled dataset by name (chapter "Setup")."""

from __future__ import annotations

from functools import partial
from typing import Callable

from .dataset import TextDataset
from .embedded import lee_corpus, movie_reviews, newsgroups
from .remote import SENTENCE_SETS, imdb, sentence_set
from .tab_corpora import MTL16_DOMAINS, mtl16, r8
from .synthetic import synthetic_sentiment

# name -> (loader(split, **kw), where it comes from). Embedded ones work offline.
DATASETS: dict[str, tuple[Callable[..., TextDataset], str]] = {
    "movie_reviews": (movie_reviews, "embedded: gensim test data, 200 sentences"),
    "newsgroups": (newsgroups, "embedded: gensim test data, 200 posts, 2 groups"),
    "synthetic_sentiment": (
        synthetic_sentiment,
        "embedded: generated; grammar='keyword' (one planted keyword, maybe "
        "negated) or 'order' (two opinion words, a negator or 'but' decides)",
    ),
    "imdb": (imdb, "download: Hugging Face datasets (or a local copy), 50k reviews"),
    "r8": (r8, "download: Reuters-21578 R8, 7,674 news stories, 8 topics"),
    **{
        f"mtl16_{domain.lower()}": (
            partial(mtl16, domain),
            f"download: MTL-16 {domain} reviews (Liu et al. 2017), 2,000",
        )
        for domain in MTL16_DOMAINS
    },
    **{
        name: (partial(sentence_set, name), "download: Kim (2014) sentence sets")
        for name in SENTENCE_SETS
    },
}
CORPORA: dict[str, Callable[[], list[list[str]]]] = {
    "lee": partial(lee_corpus, "background"),
    "lee_test": partial(lee_corpus, "test"),
}


def available_datasets() -> list[str]:
    """Names that :func:`load_dataset` accepts."""
    return sorted(DATASETS)


def load_dataset(name: str, split: str = "train", **kwargs) -> TextDataset:
    """A labelled dataset by name, e.g. ``load_dataset("movie_reviews",
    split="valid")``.

    Raises:
        KeyError: for an unknown name; the message lists the available ones.
    """
    key = name.strip().lower()
    if key not in DATASETS:
        raise KeyError(
            f"Unknown dataset {name!r}. Available: {', '.join(available_datasets())}. "
            "For your own file use lamalib.data.load_table(path)."
        )
    return DATASETS[key][0](split=split, **kwargs)


def load_corpus(name: str) -> list[list[str]]:
    """An unlabelled corpus as token lists (for word vectors), e.g. ``"lee"``."""
    if name not in CORPORA:
        raise KeyError(
            f"Unknown corpus {name!r}. Available: {', '.join(sorted(CORPORA))}."
        )
    return CORPORA[name]()
