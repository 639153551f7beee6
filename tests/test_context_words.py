"""lamalib.analysis.context_words against a loop over the heads' vectors."""

import math

import pytest
import torch

from lamalib.analysis.context_words import context_similarity
from lamalib.models import build_model
from lamalib.nn.masking import lengths_to_mask


@pytest.mark.parametrize("name,rank", [("lama_ctx", 1), ("lama", 1), ("lama_ctx", 3),
                                       ("le", 1)])
def test_context_similarity_by_loop(name, rank):
    torch.manual_seed(0)
    model = build_model(name, vocab_size=20, num_classes=3, embed_dim=8,
                        hidden_size=4, heads=5, rank=rank, mlp_size=6)
    tokens = torch.randint(1, 20, (3, 6))
    mask = lengths_to_mask(torch.tensor([6, 4, 1]), 6)
    tokens = tokens.masked_fill(~mask, 0)
    got = context_similarity(model, tokens, mask)
    att = model.attention
    for b, n in enumerate([6, 4, 1]):
        with torch.no_grad():
            H = model.annotations(tokens[b:b + 1, :n], mask[b:b + 1, :n])[0]  # (n, D)
            c = H.mean(0) if name != "lama" else att.context.c  # the doc alone
            a = [sum(c[d] * att.p[d, j, i] for d in range(H.shape[1]))
                 for j in range(rank) for i in range(5)]  # P^T c, one number a time
            for t in range(n):
                u = torch.tanh(att.proj(H[t]))
                q = [sum(u[d] * att.q[d, j, i] for d in range(H.shape[1]))
                     for j in range(rank) for i in range(5)]
                dot = sum(x * y for x, y in zip(a, q))
                cos = dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in q))
                assert got[b, t].item() == pytest.approx(float(cos), abs=1e-5)
                # the numerator is the heads' summed bilinear scores, eq. (4) (paper eq. 10)
                f = att.scores(H[None], c[None])[0, t].sum()
                assert float(dot) == pytest.approx(f.item(), abs=1e-5)
        assert torch.isnan(got[b, n:]).all()  # pads
