"""Attention patterns (lamalib.nn.patterns): predicates and masks against brute-force
loops over eqs. (4)-(6), global relevance (eq. 1) on constructed attention, the
3-sigma rule, fixed and masked heads, sparsity, padding."""

import math
from types import SimpleNamespace

import pytest
import torch

from lamalib.models.te import TEClassifier
from lamalib.nn.transformer.encoder_layer import EncoderLayer
from lamalib.nn.self_attention.multihead import MultiHeadAttention
from lamalib.data import Vocab
from lamalib.nn.patterns import (PATTERNS, BoundPattern, Injection, bind_pattern,
                                 every_layer, fix_heads, global_relevance,
                                 head_attention_mask, kept_patterns, pattern_cells,
                                 pattern_mask, register_pattern, relevance,
                                 significant_heads, sparsity, with_never,
                                 z_ceiling)
from lamalib.viz.explorer import collect_attention

pytestmark = pytest.mark.usefixtures("one_thread")


def _docs(seed=0):
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(1, 6, (3, 9), generator=g)  # few ids: many repeats
    mask = torch.ones(3, 9, dtype=torch.bool)
    mask[1, 6:] = False
    mask[2, 4:] = False
    tokens[~mask] = 0
    spans = torch.tensor([[0, 0, 0, 1, 1, 2, 2, 2, 2]] * 3)
    spans[~mask] = -1
    return tokens, mask, spans


def _brute_mask(name, x, spans, n):
    """Eqs. (4)-(6) literally, for one document of n real tokens."""
    M = torch.zeros(n, n, dtype=torch.bool)
    freq = [sum(x[a] == x[b] for b in range(n)) for a in range(n)]
    for i in range(n):
        for j in range(n):
            if name == "matching":  # eq. (4)
                M[i, j] = x[i] == x[j] or freq[i] == 1
            elif name == "same_span":  # eq. (5)
                M[i, j] = spans[i] == spans[j]
            elif name == "previous":  # eq. (6); the first token has no i - 1
                M[i, j] = j == i - 1 or i == 0
            elif name == "next":
                M[i, j] = j == i + 1 or i == n - 1
    return M


@pytest.mark.parametrize("name", ["matching", "same_span", "previous", "next"])
def test_masks_match_a_brute_force_loop(name):
    tokens, mask, spans = _docs()
    M = pattern_mask(name, tokens, mask, spans)
    for b in range(3):
        n = int(mask[b].sum())
        x, s = tokens[b].tolist(), spans[b].tolist()
        assert torch.equal(M[b, :n, :n], _brute_mask(name, x, s, n))
        assert not M[b, :, n:].any()  # never a pad key


def test_matching_cells_skip_tokens_that_occur_once():
    tokens = torch.tensor([[7, 3, 7, 5, 3, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 0]]).bool()
    cells = pattern_cells("matching", tokens, mask)[0]
    assert cells[0].tolist() == [1, 0, 1, 0, 0, 0]
    assert not cells[3].any()  # 5 occurs once: 1[freq > 1] is 0 for its whole row
    assert not cells[5].any()  # the pad
    assert pattern_mask("matching", tokens, mask)[0, 3].tolist() == [1] * 5 + [0]


def test_matching_never_matches_the_unknown_word():
    vocab = Vocab.build(["the cat saw the dog"])
    words = "the zorp saw the blick cat".split()  # zorp, blick: out of vocabulary
    tokens = torch.tensor([vocab.encode(words) + [vocab.pad_id]])  # (1, 7)
    mask = tokens != vocab.pad_id
    assert tokens[0, 1] == tokens[0, 4] == vocab.unk_id  # two words, one id
    matching = bind_pattern("matching", never=[vocab.unk_id])
    cells = pattern_cells(matching, tokens, mask)[0]  # (T, T)
    # by hand: only the two 'the' (positions 0 and 3) match, each other and themselves
    expected = torch.zeros(7, 7, dtype=torch.bool)
    for i in (0, 3):
        expected[i, [0, 3]] = True
    assert torch.equal(cells, expected)
    M = pattern_mask(matching, tokens, mask)[0]
    assert M[0].tolist() == [1, 0, 0, 1, 0, 0, 0]  # 'the' looks at every 'the'
    for i in (1, 2, 4, 5):  # zorp, saw, blick, cat: each free over the real keys
        assert M[i].tolist() == [1] * 6 + [0]
    # without `never` (the default, as before) the two unknown words match
    old = pattern_cells("matching", tokens, mask)[0]
    assert old[1, 4] and old[4, 1] and torch.equal(old & ~expected,
                                                   old & (tokens[0] == 1)[:, None])


def test_bound_patterns_are_named_hashable_and_checked():
    a = bind_pattern("matching", never=[1])
    assert a == BoundPattern("matching", (("never", (1,)),)) and hash(a) == hash(
        bind_pattern("matching", never=(1,)))
    assert a.__name__ == "matching"
    assert with_never(["matching", "same_span"], [1]) == [a, "same_span"]
    assert with_never(["matching"], []) == ["matching"]
    with pytest.raises(TypeError, match="does not take"):
        bind_pattern("same_span", never=[1])
    tokens, mask, spans = _docs()
    tokens[0, :3] = 1  # three unknown words in the first document
    inj = [Injection(0, a), Injection(1, "matching")]
    M = head_attention_mask(inj, 2, tokens, mask, spans)  # (B, 2, T, T)
    torch.testing.assert_close(M[:, 0], pattern_mask(a, tokens, mask))
    assert torch.equal(M[0, 0, 0], mask[0])  # <unk> never matches: its row is free
    assert torch.equal(M[0, 1, 0], (tokens[0] == 1) & mask[0])  # the old behaviour
    model = TEClassifier(8, 2, d_model=8, n_heads=2, d_ff=8, n_layers=1).eval()
    batch = SimpleNamespace(tokens=tokens, mask=mask)
    assert list(global_relevance(model, [batch], [a])) == ["matching"]


def _follow(cells, mask):
    """Attention that follows the pattern exactly: uniform over each row's cells."""
    w = cells.double()
    return w / w.sum(-1, keepdim=True).clamp_min(1)  # (B, T, T)


def test_attention_that_follows_a_pattern_has_gr_one():
    tokens = torch.tensor([[4, 5, 4, 6, 5, 6, 0]])  # every token occurs twice
    mask = torch.tensor([[1] * 6 + [0]]).bool()
    spans = torch.tensor([[0, 0, 1, 1, 1, 2, -1]])
    for name in ["matching", "same_span"]:
        cells = pattern_cells(name, tokens, mask, spans)
        w = _follow(cells, mask)[:, None]  # (B, 1, T, T)
        torch.testing.assert_close(relevance(w, cells, mask),
                                   torch.ones(1, 1, dtype=torch.double))
    # "previous": the first token has no previous one, so at most (N - 1) / N
    cells = pattern_cells("previous", tokens, mask)
    got = relevance(_follow(cells, mask)[:, None], cells, mask)
    assert got.item() == pytest.approx(5 / 6)


def test_uniform_attention_gives_the_closed_form():
    tokens, mask, spans = _docs(seed=3)
    n = mask.sum(-1)  # (B,)
    uniform = (mask[:, None, :].double() / n[:, None, None])  # (B, T, T)
    uniform = uniform * mask[:, :, None]
    for name in ["matching", "same_span", "previous", "next"]:
        cells = pattern_cells(name, tokens, mask, spans)
        got = relevance(uniform[:, None], cells, mask)[:, 0]  # (B,)
        for b in range(3):
            N = int(n[b])
            x, s = tokens[b, :N].tolist(), spans[b, :N].tolist()
            if name == "matching":  # sum over repeated ids of count^2
                hits = sum(x.count(v) ** 2 for v in set(x) if x.count(v) > 1)
            elif name == "same_span":
                hits = sum(s.count(v) ** 2 for v in set(s))
            else:
                hits = N - 1
            assert got[b].item() == pytest.approx(hits / N ** 2)  # (hits / N) / N


def test_global_relevance_is_the_mean_over_documents_and_ignores_padding():
    torch.manual_seed(0)
    model = TEClassifier(8, 2, d_model=16, n_heads=4, d_ff=16, n_layers=2,
                         dropout=0.0).eval()
    tokens, mask, spans = _docs(seed=1)
    batches = [SimpleNamespace(tokens=tokens[:2], mask=mask[:2], spans=spans[:2]),
               SimpleNamespace(tokens=tokens[2:], mask=mask[2:], spans=spans[2:])]
    gr = global_relevance(model, batches, ["same_span", "previous"])
    assert gr["same_span"].shape == (2, 4)
    alone = []
    for b in range(3):  # each document alone: no padding at all
        n = int(mask[b].sum())
        t, m, s = tokens[b:b + 1, :n], mask[b:b + 1, :n], spans[b:b + 1, :n]
        w = collect_attention(model, lambda: model(t, m))  # (L, 1, H, n, n)
        alone.append(relevance(w, pattern_cells("same_span", t, m, s), m)[:, 0])
    torch.testing.assert_close(gr["same_span"], sum(alone) / 3, rtol=1e-5, atol=1e-6)


def test_user_predicates_work_by_function_and_by_name():
    def same_id_parity(tokens, mask, spans=None):
        return (tokens[:, :, None] % 2) == (tokens[:, None, :] % 2)
    tokens, mask, _ = _docs()
    cells = pattern_cells(same_id_parity, tokens, mask)
    assert cells[0, 0, 0] and cells.shape == (3, 9, 9)
    register_pattern("parity_test")(same_id_parity)
    try:
        assert torch.equal(pattern_cells("parity_test", tokens, mask), cells)
    finally:
        del PATTERNS["parity_test"]
    with pytest.raises(KeyError, match="register_pattern"):
        pattern_cells("nope", tokens, mask)
    with pytest.raises(ValueError, match="spans"):
        pattern_cells("same_span", tokens, mask)


def test_three_sigma_rule_keeps_a_planted_head_and_has_a_ceiling():
    gr = torch.full((2, 8), 0.1)
    gr[1, 3] = 0.9  # one head among 16: z = sqrt(15) = 3.87 > 3
    assert significant_heads(gr).nonzero().tolist() == [[1, 3]]
    flat = torch.full((2, 8), 0.1) + 0.001 * torch.arange(16).view(2, 8)
    assert kept_patterns({"a": gr, "b": flat}) == ["a"]
    for n in [4, 8, 9]:  # one outlier among n < 10 heads never passes 3 sigma
        g = torch.zeros(n)
        g[0] = 1.0
        z = (g[0] - g.mean()) / g.std(unbiased=False)
        assert z.item() == pytest.approx(math.sqrt(n - 1))  # Samuelson's bound
        assert z_ceiling(n) == pytest.approx(z.item())  # and the ceiling says it
        assert not significant_heads(g).any()


def test_three_sigma_rule_does_not_fire_on_its_bound_with_ten_heads():
    g = torch.zeros(10)
    g[0] = 0.1  # z = sqrt(9) = 3 exactly; float arithmetic gives 3.000000000000001
    assert not significant_heads(g).any()
    assert not significant_heads(g.double()).any()
    g = torch.zeros(11)
    g[0] = 1.0  # z = sqrt(10) = 3.16 > 3
    assert significant_heads(g).nonzero().tolist() == [[0]]


def test_three_sigma_rule_uses_the_population_std():
    g = torch.zeros(11, dtype=torch.double)
    g[0], g[1] = 1.0, 0.2
    d = g[0] - g.mean()
    assert d / g.std(unbiased=False) > 3 > d / g.std(unbiased=True)  # 3.10 vs 2.95
    assert significant_heads(g).nonzero().tolist() == [[0]]


def test_fixed_heads_output_the_pattern_averaged_values():
    torch.manual_seed(0)
    attn = MultiHeadAttention(16, 4).eval()
    fix_heads(attn, range(4))
    tokens, mask, spans = _docs()
    x = torch.randn(3, 9, 16)
    names = ["matching", "same_span", "previous", "next"]
    inj = [Injection(h, p, "fixed") for h, p in enumerate(names)]
    M = head_attention_mask(inj, 4, tokens, mask, spans)  # (B, H, T, T)
    out, w = attn(x, x, x, mask=M, need_weights=True)
    fast, _ = attn(x, x, x, mask=M)
    v = attn.v_proj(x).view(3, 9, 4, 4).transpose(1, 2)  # (B, H, T, Dh)
    avg = M.double() / M.sum(-1, keepdim=True).clamp_min(1)  # uniform over cells
    heads = (avg.float() @ v).transpose(1, 2).reshape(3, 9, 16)
    expected = attn.out_proj(heads)
    real = mask[..., None]
    torch.testing.assert_close(out * real, expected * real, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(fast * real, expected * real, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(w.double() * mask[:, None, :, None], avg * mask[:, None,
                               :, None], rtol=1e-6, atol=1e-7)


def test_masked_heads_never_look_outside_their_mask():
    from lamalib.models.segmenter import BoundaryTagger
    torch.manual_seed(0)
    plan = every_layer(2, [Injection(0, "matching"), Injection(1, "same_span"),
                           Injection(2, "previous", "fixed")])
    model = BoundaryTagger(8, plan, d_model=16, n_heads=4, d_ff=16).eval()
    tokens, mask, spans = _docs()
    w = collect_attention(model, lambda: model(tokens, mask, spans))  # (L,B,H,T,T)
    for layer, m in enumerate(model.attention_masks(tokens, mask, spans)):
        assert torch.all(w[layer][~m] == 0)
        free = w[layer][:, 3][mask]  # head 3 is free: every real key, real rows
        keys = mask[:, None, :].expand(3, 9, 9)[mask]  # (real queries, T)
        assert torch.equal(free > 0, keys)


def test_tagger_with_patterns_is_padding_invariant():
    from lamalib.models.segmenter import BoundaryTagger
    torch.manual_seed(1)
    plan = every_layer(2, [Injection(0, "matching"), Injection(1, "same_span"),
                           Injection(2, "next", "fixed")])
    model = BoundaryTagger(8, plan, d_model=16, n_heads=4, d_ff=16).eval()
    tokens, mask, spans = _docs(seed=2)
    batched = model(tokens, mask, spans)  # (B, S - 1, 2)
    for b in range(3):
        n = int(mask[b].sum())
        s = spans[b:b + 1, :n]
        alone = model(tokens[b:b + 1, :n], mask[b:b + 1, :n], s)
        k = alone.shape[1]
        torch.testing.assert_close(batched[b:b + 1, :k], alone, rtol=1e-5, atol=1e-5)


def test_sparsity_counts_allowed_cells_over_real_tokens():
    tokens, mask, spans = _docs()
    inj = [Injection(0, "previous"), Injection(1, "same_span")]
    M = head_attention_mask(inj, 4, tokens, mask, spans)  # (B, 4, T, T)
    rho = sparsity([M, M], mask)
    for b in range(3):
        n = int(mask[b].sum())
        allowed = sum(int(M[b, h, :n, :n].sum()) for h in range(4))
        assert rho[b].item() == pytest.approx(1 - allowed / (4 * n * n))
    vanilla = head_attention_mask([], 4, tokens, mask, spans)
    assert torch.allclose(sparsity([vanilla], mask), torch.zeros(3, dtype=torch.double))


def test_encoder_layer_accepts_per_head_masks():
    torch.manual_seed(0)
    layer = EncoderLayer(16, 4, 32, dropout=0.0).eval()
    tokens, mask, spans = _docs()
    x = torch.randn(3, 9, 16)
    free = head_attention_mask([], 4, tokens, mask, spans)
    real = mask[..., None]
    torch.testing.assert_close(layer(x, free) * real, layer(x, mask) * real)
    with pytest.raises(ValueError, match="outside"):
        head_attention_mask([Injection(4, "next")], 4, tokens, mask, spans)
    with pytest.raises(ValueError, match="how"):
        Injection(0, "next", "soft")


def test_no_head_of_a_flat_score_is_significant():
    # every head equal: no spread, so no head is above the rest (a `>=` would keep all)
    assert not significant_heads(torch.full((6, 12), 0.25)).any()
