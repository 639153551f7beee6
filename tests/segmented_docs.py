"""Small random segmented documents over a tiny vocabulary, for the tests of the
fine-tuned boundary tagger (tests/test_finetuned_heads.py, tests/test_importance_check.py)."""

import torch

from lamalib.data.datasets.segmentation import SegmentedDoc

WORDS = "the a cat dog saw ran . film good bad plot actor was is very".split()


def random_docs(n: int, seed: int = 0) -> list[SegmentedDoc]:
    """``n`` documents of 2 to 4 sentences of 2 to 5 words of :data:`WORDS`, each
    sentence with a random topic of two; the same ``seed`` gives the same documents."""
    g = torch.Generator().manual_seed(seed)
    docs = []
    for _ in range(n):
        S = int(torch.randint(2, 5, (1,), generator=g))
        sents = [[WORDS[int(i)] for i in torch.randint(0, len(WORDS), (
            int(torch.randint(2, 6, (1,), generator=g)),), generator=g)]
            for _ in range(S)]
        topics = torch.randint(0, 2, (S,), generator=g).tolist()
        docs.append(SegmentedDoc(sents, topics))
    return docs
