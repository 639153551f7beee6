"""LAMA (Mehta et al., arXiv 1912.00835) against its equations (cited by the paper's
numbers), and the CNN baseline."""

import math

import pytest
import torch
import torch.nn.functional as F

from lamalib.data import Batch
from lamalib.models import build_model, model_options
from lamalib.nn.lama import (LowRankMultiHeadAttention, embedding_disagreement,
                             position_disagreement)
from lamalib.testing import assert_padding_invariant
from lamalib.train.steps import classification_step

LAMA_NAMES = ["lama", "lama_ctx", "lama_ctx_de", "lama_ctx_dp", "le"]


def set_params(att, w, b, p, q):
    with torch.no_grad():
        att.proj.weight.copy_(torch.tensor(w))
        att.proj.bias.copy_(torch.tensor(b))
        att.p.copy_(torch.tensor(p))
        att.q.copy_(torch.tensor(q))


def test_eq13_by_hand_two_heads_three_words():
    # D = 2, m = 2, k = 1; W_w = I, b_w = 0 so u_t = tanh(h_t); c = mean of H.
    H = [[1.0, 0.0], [0.0, 1.0], [1.0, 2.0]]
    P = [[1.0, 0.0], [0.0, 1.0]]  # P~ (D, m): column i is p_i
    Q = [[1.0, 1.0], [0.0, -1.0]]  # Q~ (D, m): column i is q_i
    att = LowRankMultiHeadAttention(2, heads=2, rank=1, context="mean")
    set_params(att, [[1.0, 0.0], [0.0, 1.0]], [0.0, 0.0],
               [[row] for row in P], [[row] for row in Q])  # (D, k=1, m)
    # By hand, one scalar at a time.
    c = [sum(h[d] for h in H) / 3 for d in range(2)]  # (2/3, 1)
    rows = []  # rows[t][i] = l2(tanh(f_t))_i
    for h in H:
        u = [math.tanh(h[0]), math.tanh(h[1])]  # paper eq. 7
        f = [(P[0][i] * c[0] + P[1][i] * c[1]) * (Q[0][i] * u[0] + Q[1][i] * u[1])
             for i in range(2)]  # paper eq. 11: (p_i . c)(q_i . u_t)
        g = [math.tanh(x) for x in f]
        norm = math.sqrt(g[0] ** 2 + g[1] ** 2)  # l2 across the 2 heads
        rows.append([x / norm for x in g])
    want = [[math.exp(rows[t][i]) / sum(math.exp(rows[s][i]) for s in range(3))
             for t in range(3)] for i in range(2)]  # softmax along the words
    # In a batch with a padded second document: pads get 0 and change nothing.
    states = torch.tensor([H + [[0.0, 0.0]], H[:2] + [[0.0, 0.0]] * 2])  # (2, 4, 2)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    S, A = att(states, mask)
    torch.testing.assert_close(A[0, :, :3], torch.tensor(want))
    assert (A[:, :, 3] == 0).all() and (A[1, :, 2:] == 0).all()
    # paper eq. 15
    torch.testing.assert_close(S[0], torch.tensor(want) @ torch.tensor(H))
    torch.testing.assert_close(att.last_weights, A.detach())


def test_rank1_heads_are_explicit_bilinear_maps():
    torch.manual_seed(0)
    D, m = 6, 4
    att = LowRankMultiHeadAttention(D, heads=m, rank=1, context="learned")
    states = torch.randn(3, 5, D)
    c = torch.randn(3, D)
    got = att.scores(states, c)  # (B, T, m)
    u = torch.tanh(states @ att.proj.weight.T + att.proj.bias)  # paper eq. 7
    for i in range(m):
        W_i = torch.outer(att.p[:, 0, i], att.q[:, 0, i])  # p_i q_i^T (D, D)
        for b in range(3):
            for t in range(5):
                f = c[b] @ W_i @ u[b, t]  # paper eq. 8: c^T W_i u_t
                torch.testing.assert_close(got[b, t, i], f)


def test_rank_k_is_the_sum_of_k_rank1_maps():
    torch.manual_seed(1)
    D, m, k = 5, 3, 4
    att = LowRankMultiHeadAttention(D, heads=m, rank=k, context="learned")
    states, c = torch.randn(2, 7, D), torch.randn(2, D)
    got = att.scores(states, c)
    total = torch.zeros_like(got)
    for d in range(k):  # k modules of rank 1, each holding one column of P_i and Q_i
        one = LowRankMultiHeadAttention(D, heads=m, rank=1, context="learned")
        one.load_state_dict({**att.state_dict(), "p": att.p[:, d:d + 1].detach(),
                             "q": att.q[:, d:d + 1].detach()})
        total += one.scores(states, c)
    torch.testing.assert_close(got, total)
    u = torch.tanh(att.proj(states))
    for i in range(m):  # and each head is the bilinear map W_i = P_i Q_i^T (eq. 10)
        W_i = att.p[:, :, i] @ att.q[:, :, i].T  # (D, D), rank <= k
        want = torch.einsum("bd,de,bte->bt", c, W_i, u)  # c^T W_i u_t
        torch.testing.assert_close(got[..., i], want)


def test_init_follows_section_3_2_and_bad_names_are_refused():
    torch.manual_seed(2)
    att = LowRankMultiHeadAttention(400, heads=2)
    assert abs(att.proj.weight.std().item() - 0.1) < 0.005  # std 0.1, not variance
    assert abs(att.proj.weight.mean().item()) < 0.005
    with pytest.raises(ValueError, match="unknown context"):
        LowRankMultiHeadAttention(4, context="global")
    with pytest.raises(ValueError, match="unknown normalize"):
        LowRankMultiHeadAttention(4, normalize="l1")
    with pytest.raises(ValueError, match="unknown disagreement"):
        build_model("lama", vocab_size=9, num_classes=2, disagreement="kl")


def test_l2_runs_across_heads_and_none_skips_it():
    torch.manual_seed(3)
    states, mask = torch.randn(2, 6, 4), torch.ones(2, 6, dtype=torch.bool)
    l2 = LowRankMultiHeadAttention(4, heads=3, context="mean")
    raw = LowRankMultiHeadAttention(4, heads=3, context="mean", normalize="none")
    raw.load_state_dict(l2.state_dict())
    f = torch.tanh(l2.scores(states, states.mean(1)))  # (B, T, m)
    torch.testing.assert_close(torch.log(l2(states, mask)[1]).transpose(1, 2),
                               torch.log_softmax(f / f.norm(dim=-1, keepdim=True), 1))
    torch.testing.assert_close(torch.log(raw(states, mask)[1]).transpose(1, 2),
                               torch.log_softmax(f, 1))


def test_disagreements_match_loops():
    torch.manual_seed(4)
    B, m, T, D = 3, 4, 5, 6
    A = torch.softmax(torch.randn(B, m, T), -1)
    S = torch.randn(B, m, D)
    dp = de = 0.0
    for b in range(B):
        for i in range(m):
            for j in range(m):
                dot = sum(float(A[b, i, t] * A[b, j, t]) for t in range(T))
                dp += (dot - (i == j)) ** 2  # paper eq. 19a
                si, sj = S[b, i].tolist(), S[b, j].tolist()
                norms = math.sqrt(sum(x * x for x in si) * sum(y * y for y in sj))
                cos = sum(x * y for x, y in zip(si, sj)) / norms
                de += cos / m**2  # paper eq. 19b
    torch.testing.assert_close(position_disagreement(A), torch.tensor(dp / B))
    torch.testing.assert_close(embedding_disagreement(S), torch.tensor(de / B))
    same = torch.ones(1, m, D)  # every head the same embedding: D = 1
    assert embedding_disagreement(same).item() == pytest.approx(1.0)


@pytest.mark.parametrize("name, reg", [("lama_ctx_dp", position_disagreement),
                                       ("lama_ctx_de", embedding_disagreement)])
def test_regularization_is_lambda_times_D_and_reaches_the_loss(name, reg):
    torch.manual_seed(5)
    model = build_model(name, vocab_size=20, num_classes=2, embed_dim=6,
                        hidden_size=3, heads=3, mlp_size=8, dropout=0.0)
    assert model.config.penalty == 0.2  # lambda, section 3.4
    tokens = torch.tensor([[3, 4, 5, 6], [7, 8, 0, 0]])
    mask = tokens != 0
    batch = Batch(tokens, mask, labels=torch.tensor([0, 1]), index=torch.arange(2))
    out = classification_step(model, batch)
    ce = F.cross_entropy(model(tokens, mask), batch.labels)
    source = model._weights if name.endswith("dp") else model._sentence
    torch.testing.assert_close(model.regularization(), 0.2 * reg(source))
    torch.testing.assert_close(out.loss, ce + model.regularization())
    plain = build_model("lama_ctx", vocab_size=20, num_classes=2, embed_dim=6,
                        hidden_size=3, heads=3, mlp_size=8, dropout=0.0)
    plain(tokens, mask)
    assert plain.regularization() == 0


@pytest.mark.parametrize("name", LAMA_NAMES + ["cnn"])
def test_padding_invariant(name):
    torch.manual_seed(6)
    small = {"filters": 4} if name == "cnn" else {"hidden_size": 4, "heads": 3,
                                                  "mlp_size": 8}
    model = build_model(name, vocab_size=30, num_classes=3, embed_dim=8, **small)
    seqs = [[3, 4, 5], [7, 8, 9, 10, 11, 12, 13], [12], [5, 6]]
    assert_padding_invariant(model, seqs)


@pytest.mark.parametrize("name", LAMA_NAMES)
def test_parameter_count_closed_form(name):
    V, E, h, m, k, M, C = 50, 12, 5, 4, 2, 16, 3
    model = build_model(name, vocab_size=V, num_classes=C, embed_dim=E, hidden_size=h,
                        heads=m, rank=k, mlp_size=M)
    rnn = name != "le"
    D = 2 * h if rnn else E
    gru = 2 * 3 * (E * h + h * h + 2 * h) if rnn else 0  # per direction, 3 gates
    attention = D * D + D + 2 * D * k * m  # W_w, b_w, P and Q (paper eqs. 7, 10)
    attention += D if name == "lama" else 0  # a learned c
    attention += 512 * E if name == "le" else 0  # LE's learned positions
    mlp = m * D * M + M + M * C + C
    assert sum(p.numel() for p in model.parameters()) == V * E + gru + attention + mlp
    assert model.describe()["params"] == V * E + gru + attention + mlp


def test_variants_are_defaults_of_one_config():
    opts = {n: model_options(n) for n in LAMA_NAMES}
    assert opts["lama"]["context"] == "learned"
    assert opts["lama_ctx"]["context"] == "mean"
    assert opts["lama_ctx_de"]["disagreement"] == "de"
    assert opts["lama_ctx_dp"]["disagreement"] == "dp"
    assert opts["le"]["encoder"] == "positions" and opts["le"]["context"] == "mean"
    for o in opts.values():  # section 3.5
        assert (o["embed_dim"], o["hidden_size"], o["mlp_size"], o["dropout"]) == (
            100, 50, 512, 0.4)


def test_le_reads_order_only_through_positions():
    torch.manual_seed(7)
    tokens = torch.tensor([[3, 4, 5, 6, 7]])
    mask = torch.ones_like(tokens, dtype=torch.bool)
    flipped = tokens.flip(1)
    for positional, same in (("learned", False), ("sinusoidal", False), ("none", True)):
        model = build_model("le", vocab_size=10, num_classes=2, embed_dim=8, heads=2,
                            mlp_size=4, positional=positional).eval()
        with torch.no_grad():
            a, b = model(tokens, mask), model(flipped, mask)
        assert torch.allclose(a, b, atol=1e-6) == same


def test_every_lama_model_takes_pretrained_vectors():
    vectors = torch.randn(12, 8)
    for name in LAMA_NAMES + ["cnn"]:
        model = build_model(name, vocab_size=12, num_classes=2, embed_dim=8,
                            pretrained=vectors)
        torch.testing.assert_close(model.embed.weight.detach(), vectors)


def test_cnn_matches_a_window_loop():
    torch.manual_seed(8)
    model = build_model("cnn", vocab_size=20, num_classes=2, embed_dim=4,
                        kernel_sizes=(2, 3), filters=5).eval()
    seq = [3, 4, 5, 6]
    x = model.embed(torch.tensor(seq)).detach()  # (n, E)
    feats = []
    for conv in model.convs:
        k = conv.kernel_size[0]
        padded = torch.cat([torch.zeros(k - 1, 4), x, torch.zeros(k - 1, 4)])
        windows = [padded[j:j + k].T.reshape(-1) for j in range(len(seq) + k - 1)]
        w = conv.weight.detach().reshape(5, -1)  # (filters, E * k)
        acts = torch.stack([torch.relu(w @ win + conv.bias) for win in windows])
        feats.append(acts.max(0).values)  # max over time, Kim (2014)
    want = model.out(torch.cat(feats))
    with torch.no_grad():
        got = model(torch.tensor([seq]), torch.ones(1, 4, dtype=torch.bool))[0]
    torch.testing.assert_close(got, want.detach())


def test_embedding_mean_context_is_the_papers_mean_of_word_vectors():
    torch.manual_seed(8)
    model = build_model("lama", vocab_size=20, num_classes=2, embed_dim=6,
                        hidden_size=3, heads=2, mlp_size=4,
                        context="embedding_mean").eval()
    tokens = torch.tensor([[3, 4, 5, 0], [6, 7, 0, 0]])
    mask = tokens != 0
    seen = {}
    model.attention.context.register_forward_hook(
        lambda module, args, out: seen.setdefault("c", out))
    with torch.no_grad():
        model(tokens, mask)
    words = model.embed.weight.detach()
    by_hand = torch.stack([words[[3, 4, 5]].mean(0), words[[6, 7]].mean(0)])  # (B, E)
    assert torch.allclose(seen["c"], by_hand, atol=1e-6)
    with pytest.raises(ValueError, match="embed_dim"):
        build_model("lama", vocab_size=20, num_classes=2, embed_dim=5,
                    hidden_size=3, context="embedding_mean")
