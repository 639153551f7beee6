"""Synthetic translation task: targets follow the alignment; batches are well formed."""

import pytest
import torch

from lamalib.data.datasets.translation import (BOS_ID, EOS_ID, PAD_ID,
                                               make_translation_task)


@pytest.mark.parametrize("kind", ["copy", "reverse", "reorder"])
def test_target_is_source_read_through_alignment(kind):
    task = make_translation_task(kind, n=50, min_len=1, max_len=7, vocab_size=9, seed=3)
    for s, t, a in zip(task.src, task.tgt, task.alignment):
        assert len(t) == len(s) == len(a)
        assert sorted(a) == list(range(len(s)))  # a permutation: each token once
        assert t == [s[j] for j in a]
        assert all(3 <= i < 9 for i in s)  # content ids never collide with specials


def test_kinds_match_python_list_operations():
    for kind, rule in [("copy", lambda s: s), ("reverse", lambda s: s[::-1])]:
        task = make_translation_task(kind, n=20, seed=1)
        assert all(t == rule(s) for s, t in zip(task.src, task.tgt))
    task = make_translation_task("reorder", n=20, min_len=2, seed=1)
    for s, t in zip(task.src, task.tgt):
        expected = list(s)
        for i in range(0, len(s) - 1, 2):  # brute force: swap each neighbour pair
            expected[i], expected[i + 1] = s[i + 1], s[i]
        assert t == expected


def test_same_seed_same_data_and_bad_kind_is_explained():
    a = make_translation_task("reverse", n=30, seed=5)
    b = make_translation_task("reverse", n=30, seed=5)
    assert a.src == b.src and a.tgt == b.tgt
    with pytest.raises(ValueError, match="copy"):
        make_translation_task("sort")


def test_batch_layout():
    task = make_translation_task("reverse", n=10, min_len=2, max_len=6, seed=0)
    rows = list(range(10))
    batch = task.collate(rows).to("cpu")
    B, S = batch.src.shape
    assert len(batch) == B == 10 and S == max(len(s) for s in task.src)
    assert batch.tgt_in.shape == batch.tgt_out.shape == batch.alignment.shape
    assert (batch.tgt_in[:, 0] == BOS_ID).all()
    for b in rows:
        n = len(task.tgt[b])
        assert batch.src[b, :n].tolist() == task.src[b]
        assert batch.src_mask[b].sum() == n
        assert (batch.src[b][~batch.src_mask[b]] == PAD_ID).all()
        assert batch.tgt_out[b, n] == EOS_ID and batch.tgt_mask[b].sum() == n + 1
        # teacher forcing: the decoder input is the output shifted right by one
        assert batch.tgt_in[b, 1 : n + 1].tolist() == batch.tgt_out[b, :n].tolist()
        assert batch.alignment[b, :n].tolist() == task.alignment[b]
        assert (batch.alignment[b, n:] == -1).all()
        src_tokens = batch.src[b, batch.alignment[b, :n]]
        assert torch.equal(src_tokens, batch.tgt_out[b, :n])


def test_loader_covers_every_example_once_and_reshuffles():
    task = make_translation_task("copy", n=23, seed=0)
    train, valid = task.split(5)
    assert len(train) == 18 and valid.src == task.src[18:]
    loader = train.batches(batch_size=4, shuffle=True, seed=0)
    assert len(loader) == 5
    seen = sorted(tuple(task.decode(row)) for b in loader for row in b.tgt_out.tolist())
    assert seen == sorted(tuple(train.decode(t)) for t in train.tgt)
    first = [b.src.tolist() for b in loader]
    loader.set_epoch(1)
    assert first != [b.src.tolist() for b in loader]
