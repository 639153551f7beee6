"""Optimisers by name: fit with each equals a hand-written PyTorch loop."""

import pytest
import torch

from lamalib.data import Vocab, load_dataset, make_loader
from lamalib.models import build_model
from lamalib.runtime import seed_everything
from lamalib.train import TrainConfig, fit
from lamalib.train.steps import classification_step


@pytest.fixture(scope="module")
def task():
    train = load_dataset("synthetic_sentiment", "train", n=120, p_negate=0.0)
    vocab = Vocab.build(train.texts)
    return vocab, make_loader(train, vocab, 32, shuffle=True)


def _model(vocab):
    torch.manual_seed(0)
    return build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=8)


@pytest.mark.parametrize("name, reference", [
    ("sgd", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-4)),
    ("adam", lambda p: torch.optim.Adam(p, lr=0.05, betas=(0.9, 0.98), eps=1e-9,
                                        weight_decay=1e-4)),
    ("adamw", lambda p: torch.optim.AdamW(p, lr=0.05, betas=(0.9, 0.98), eps=1e-9,
                                          weight_decay=1e-4)),
])
def test_fit_with_each_optimizer_equals_a_plain_loop(task, name, reference):
    vocab, train = task
    config = TrainConfig(epochs=2, optimizer=name, lr=0.05, weight_decay=1e-4,
                         betas=(0.9, 0.98), eps=1e-9, clip_grad=None,
                         progress=False, patience=5)
    ours = _model(vocab)
    fit(ours, train, None, config)

    plain = _model(vocab)
    seed_everything(config.seed)
    optimizer = reference(plain.parameters())
    for epoch in (1, 2):
        train.set_epoch(epoch)
        for batch in train:
            loss = classification_step(plain, batch).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    for (key, a), b in zip(ours.state_dict().items(), plain.state_dict().values()):
        torch.testing.assert_close(a, b, msg=key)


def test_unknown_optimizer_lists_the_known_ones(task):
    vocab, train = task
    with pytest.raises(ValueError, match=r"choose one of \['adam', 'adamw', 'sgd'\]"):
        fit(_model(vocab), train, None, TrainConfig(optimizer="rmsprop"))
