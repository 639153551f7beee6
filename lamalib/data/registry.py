"""``load_dataset(name, split)``: every labelled dataset by name (chapter "Setup");
``load_documents(name, split)``: the corpora of sentence-labelled documents (chapter
"Finding and injecting attention patterns")."""

from __future__ import annotations

from functools import partial
from typing import Callable

from lamalib.data.datasets.cnn_dailymail import cnn_dailymail
from lamalib.data.dataset import TextDataset
from lamalib.data.datasets.embedded import lee_corpus, movie_reviews, newsgroups
from lamalib.data.pair_dataset import PairDataset
from lamalib.data.datasets.remote import SENTENCE_SETS, imdb, sentence_set
from lamalib.data.datasets.snli import snli
from lamalib.data.datasets.tab_corpora import MTL16_DOMAINS, mtl16, r8
from lamalib.data.datasets.synthetic import synthetic_sentiment
from lamalib.data.datasets.synthetic_nli import synthetic_nli
from lamalib.data.datasets.uit_vsfc import uit_vsfc
from lamalib.data.datasets.wiki727k import wiki50, wiki727k
from lamalib.data.datasets.wikisection import DATASETS as WIKISECTION_SETS
from lamalib.data.datasets.wikisection import wikisection

# name -> (loader(split, **kw), where it comes from). Embedded ones work offline.
# Sentence-pair tasks (snli, synthetic_nli) give a PairDataset.
DATASETS: dict[str, tuple[Callable[..., TextDataset | PairDataset], str]] = {
    "movie_reviews": (movie_reviews, "embedded: gensim test data, 200 sentences"),
    "newsgroups": (newsgroups, "embedded: gensim test data, 200 posts, 2 groups"),
    "synthetic_sentiment": (
        synthetic_sentiment,
        "embedded: generated; grammar='keyword' (one planted keyword, maybe "
        "negated) or 'order' (two opinion words, a negator or 'but' decides)",
    ),
    "synthetic_nli": (
        synthetic_nli,
        "embedded: generated sentence pairs, SNLI's 3 labels; the hypothesis drops, "
        "flips (antonym) or adds an adjective of the premise",
    ),
    "imdb": (imdb, "download: Hugging Face datasets (or a local copy), 50k reviews"),
    "snli": (snli, "download: SNLI sentence pairs (Bowman et al. 2015), 570k, 3 "
                   "labels; Hugging Face datasets or the official zip (or a local "
                   "copy)"),
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
    **{f"uit_vsfc_{task[:-1]}": (partial(uit_vsfc, task), f"local copy: UIT-VSFC "
                                  f"{task[:-1]} (Vietnamese students' feedback)")
       for task in ("sentiments", "topics")},
}
# name -> (loader(split, **kw), where it comes from): lists of SegmentedDoc (gap
# labels) or, for cnn_dailymail, ExtractiveDoc (a label per sentence).
DOCUMENTS: dict[str, tuple[Callable[..., list], str]] = {
    "wiki727k": (wiki727k, "download or local copy: Wiki-727K (Koshorek et al. "
                           "2018), sections as segments"),
    "wiki50": (wiki50, "local copy: wiki_50, Koshorek et al.'s 50 test articles"),
    **{
        f"wikisection_{name}": (
            partial(wikisection, name),
            f"download or local copy: WikiSection {name} (Arnold et al. 2019)",
        )
        for name in WIKISECTION_SETS
    },
    "cnn_dailymail": (cnn_dailymail, "Hugging Face datasets or a local copy: "
                                     "CNN/DailyMail 3.0.0, ROUGE-oracle labels"),
}
CORPORA: dict[str, Callable[[], list[list[str]]]] = {
    "lee": partial(lee_corpus, "background"),
    "lee_test": partial(lee_corpus, "test"),
}


def available_datasets() -> list[str]:
    """Names that :func:`load_dataset` accepts."""
    return sorted(DATASETS)


def load_dataset(name: str, split: str = "train",
                 **kwargs) -> TextDataset | PairDataset:
    """A labelled dataset by name, e.g. ``load_dataset("movie_reviews",
    split="valid")``; a sentence-pair task (``"snli"``) gives a :class:`PairDataset`.

    Raises:
        KeyError: for an unknown name; the message lists the available ones.
    """
    key = name.strip().lower()
    if key in DOCUMENTS:
        raise KeyError(f"{name!r} is a corpus of segmented documents: use "
                       f"lamalib.data.load_documents({name!r}, split=...).")
    if key not in DATASETS:
        raise KeyError(
            f"Unknown dataset {name!r}. Available: {', '.join(available_datasets())}. "
            "For your own file use lamalib.data.load_table(path)."
        )
    return DATASETS[key][0](split=split, **kwargs)


def available_documents() -> list[str]:
    """Names that :func:`load_documents` accepts."""
    return sorted(DOCUMENTS)


def load_documents(name: str, split: str = "train", **kwargs) -> list:
    """A corpus of documents with sentence labels by name, e.g.
    ``load_documents("wikisection_en_disease", split="test", limit=100)``: a list of
    ``SegmentedDoc`` (``ExtractiveDoc`` for ``"cnn_dailymail"``); ``kwargs`` go to
    the loader (``path=``, ``limit=``, ...).

    Raises:
        KeyError: for an unknown name; the message lists the available ones.
    """
    key = name.strip().lower()
    if key not in DOCUMENTS:
        raise KeyError(f"Unknown document corpus {name!r}. Available: "
                       f"{', '.join(available_documents())}.")
    return DOCUMENTS[key][0](split=split, **kwargs)


def load_corpus(name: str) -> list[list[str]]:
    """An unlabelled corpus as token lists (for word vectors), e.g. ``"lee"``."""
    if name not in CORPORA:
        raise KeyError(
            f"Unknown corpus {name!r}. Available: {', '.join(sorted(CORPORA))}."
        )
    return CORPORA[name]()
