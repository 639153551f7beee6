import pytest
import torch

from lamalib.data import Vocab, load_dataset, make_loader
from lamalib.models import build_model
from lamalib.train import TrainConfig, evaluate, fit, predict
from lamalib.train.steps import classification_step


@pytest.fixture(scope="module")
def task():
    # Without negation the label is the polarity of one planted word: AVG can learn it.
    train = load_dataset("synthetic_sentiment", "train", n=400, p_negate=0.0)
    valid = load_dataset("synthetic_sentiment", "valid", n=200, p_negate=0.0)
    vocab = Vocab.build(train.texts)
    return (
        vocab,
        make_loader(train, vocab, 32, shuffle=True),
        make_loader(valid, vocab, 64),
    )


def _model(vocab, seed=0):
    torch.manual_seed(seed)
    return build_model(
        "avg", vocab_size=len(vocab), num_classes=2, embed_dim=16, dropout=0.1
    )


def test_fit_learns_the_planted_keywords(task):
    vocab, train, valid = task
    model = _model(vocab)
    before = evaluate(model, valid)["accuracy"]
    history = fit(
        model, train, valid, TrainConfig(epochs=6, lr=0.05, patience=6, progress=False)
    )
    after = evaluate(model, valid)["accuracy"]
    assert (
        len(history) == 6
        and history.column("train_loss")[-1] < history[0]["train_loss"]
    )
    assert before < 0.75 and after > 0.95
    # The kept weights are the best epoch's: highest accuracy, ties broken by the
    # lower validation loss; evaluating them reproduces that epoch's scores.
    ranked = max(history.records, key=lambda r: (r["valid_accuracy"], -r["valid_loss"]))
    assert history.best_epoch == ranked["epoch"]
    assert after == pytest.approx(ranked["valid_accuracy"])
    assert evaluate(model, valid)["loss"] == pytest.approx(ranked["valid_loss"])


def test_evaluate_and_predict_match_a_manual_pass(task):
    vocab, _, valid = task
    model = _model(vocab).eval()
    correct, loss, n = 0, 0.0, 0
    for batch in valid:
        logits = model(batch.tokens, batch.mask)
        loss += torch.nn.functional.cross_entropy(
            logits, batch.labels, reduction="sum"
        ).item()
        correct += (logits.argmax(-1) == batch.labels).sum().item()
        n += len(batch)
    scores = evaluate(model, valid)
    assert scores["accuracy"] == pytest.approx(correct / n)
    assert scores["loss"] == pytest.approx(loss / n, rel=1e-5)
    probs, labels = predict(model, valid)
    assert probs.shape == (n, 2) and torch.allclose(probs.sum(-1), torch.ones(n))
    truth = torch.tensor(
        load_dataset("synthetic_sentiment", "valid", n=200, p_negate=0.0).labels
    )
    assert (labels == truth).float().mean().item() == pytest.approx(scores["accuracy"])


def test_early_stopping_waits_patience_epochs(task):
    vocab, train, valid = task
    # lr=0 never improves after epoch 1, so the run stops after 1 + patience epochs.
    history = fit(
        _model(vocab),
        train,
        valid,
        TrainConfig(epochs=10, lr=0.0, patience=2, progress=False),
    )
    assert len(history) == 3 and history.stopped_early and history.best_epoch == 1


def test_a_run_stopped_early_goes_on_when_resumed_with_more_patience(task, tmp_path):
    vocab, train, valid = task
    config = dict(epochs=10, lr=0.0, progress=False, checkpoint_dir=tmp_path)
    first = fit(_model(vocab), train, valid, TrainConfig(patience=2, **config))
    assert len(first) == 3 and first.stopped_early
    again = fit(_model(vocab), train, valid, TrainConfig(patience=2, **config))
    assert len(again) == 3  # the same patience: it had finished
    longer = fit(_model(vocab), train, valid, TrainConfig(patience=4, **config))
    # as a run with patience 4 from the start: 1 + 4 epochs
    assert len(longer) == 5 and longer.stopped_early and longer.best_epoch == 1


def test_with_stop_after_rise_a_run_that_never_learns_is_not_stopped(task):
    vocab, train, valid = task
    # lr=0: training accuracy never rises, so patience never starts counting
    history = fit(_model(vocab), train, valid,
                  TrainConfig(epochs=6, lr=0.0, patience=2, stop_after_rise=0.1,
                              progress=False))
    assert len(history) == 6 and not history.stopped_early


def test_stop_after_rise_stops_a_run_that_learned_where_plain_patience_does(task):
    vocab, train, valid = task
    config = dict(epochs=80, lr=0.05, patience=2, progress=False)
    plain = fit(_model(vocab), train, valid, TrainConfig(**config))
    rule = fit(_model(vocab), train, valid, TrainConfig(stop_after_rise=0.1, **config))
    assert plain.stopped_early and len(plain) < 80  # it stopped, by patience
    began = [r["epoch"] for r in plain.records
             if r["train_accuracy"] >= plain[0]["train_accuracy"] + 0.1][0]
    assert len(plain) - began >= 2  # it had begun long enough before it stopped
    def scores(history):  # each epoch's, without its timing
        return [{k: v for k, v in r.items() if k != "seconds"} for r in history.records]

    assert scores(rule) == scores(plain) and rule.best_epoch == plain.best_epoch


def test_a_run_stopped_early_goes_on_when_resumed_with_stop_after_rise(task, tmp_path):
    vocab, train, valid = task
    config = dict(epochs=6, lr=0.0, patience=2, progress=False, checkpoint_dir=tmp_path)
    first = fit(_model(vocab), train, valid, TrainConfig(**config))
    assert len(first) == 3 and first.stopped_early
    # the rule is a resumable change: the run goes on, as it would have from the start
    again = fit(_model(vocab), train, valid, TrainConfig(stop_after_rise=0.1, **config))
    assert len(again) == 6 and not again.stopped_early


class _Interrupt(Exception):
    pass


def test_resume_from_checkpoint_gives_identical_weights(task, tmp_path):
    vocab, train, valid = task
    config = dict(epochs=5, lr=0.01, patience=10, progress=False)
    straight = _model(vocab, seed=0)
    fit(straight, train, valid, TrainConfig(**config))

    def disconnect(epoch, history, model):  # a Colab disconnect after epoch 2
        if epoch == 2:
            raise _Interrupt

    interrupted = _model(vocab, seed=0)
    with pytest.raises(_Interrupt):
        fit(
            interrupted,
            train,
            valid,
            TrainConfig(checkpoint_dir=tmp_path, **config),
            callbacks=[disconnect],
        )
    # A new session: a fresh model with other initial weights, resumed from disk.
    resumed = _model(vocab, seed=123)
    torch.manual_seed(999)  # and another global RNG state: the checkpoint restores it
    history = fit(resumed, train, valid, TrainConfig(checkpoint_dir=tmp_path, **config))
    assert history.column("epoch") == [1, 2, 3, 4, 5]
    for (name, a), b in zip(
        straight.state_dict().items(), resumed.state_dict().values()
    ):
        assert torch.equal(a, b), name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.pt"]


def test_regularization_is_added_to_the_loss(task):
    vocab, _, valid = task
    model = _model(vocab).eval()  # no dropout: both calls see the same network
    batch = next(iter(valid))
    plain = classification_step(model, batch).loss
    model.regularization = lambda: torch.tensor(2.5)
    assert classification_step(model, batch).loss.item() == pytest.approx(
        plain.item() + 2.5
    )


def test_best_weights_are_restored_when_the_last_epoch_is_worse(task):
    vocab, train, valid = task
    model = _model(vocab)
    fit(model, train, valid, TrainConfig(epochs=4, lr=0.05, progress=False))
    trained = {k: v.clone() for k, v in model.state_dict().items()}
    good = evaluate(model, valid)["accuracy"]
    assert good > 0.9

    def sabotage(epoch, history, model):  # after epoch 1: flip the classifier
        if epoch == 1:
            with torch.no_grad():
                model.out.weight.neg_()
                model.out.bias.neg_()

    # lr=0: only the sabotage changes the weights, so epochs 2-3 score 1 - good.
    history = fit(model, train, valid,
                  TrainConfig(epochs=3, lr=0.0, patience=5, progress=False),
                  callbacks=[sabotage])
    assert history.column("valid_accuracy")[1:] == [pytest.approx(1 - good)] * 2
    assert history.best_epoch == 1
    for name, value in model.state_dict().items():
        assert torch.equal(value, trained[name]), name


def test_ties_in_accuracy_are_broken_by_validation_loss(task):
    vocab, train, valid = task
    model = _model(vocab)
    fit(model, train, valid, TrainConfig(epochs=4, lr=0.05, progress=False))
    # Validation accuracy is now flat at its ceiling while the loss still falls: the
    # run must not stop after `patience` tied epochs, and it keeps the last weights.
    history = fit(model, train, valid,
                  TrainConfig(epochs=4, lr=0.01, patience=1, progress=False))
    accuracy, loss = history.column("valid_accuracy"), history.column("valid_loss")
    assert len(set(accuracy)) == 1 and all(b < a for a, b in zip(loss, loss[1:]))
    assert len(history) == 4 and not history.stopped_early
    assert history.best_epoch == 4


def test_gradients_are_clipped_before_each_update(task):
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    vocab, train, _ = task
    norms = []

    def record(optimizer, args, kwargs):
        grads = [p.grad for g in optimizer.param_groups for p in g["params"]
                 if p.grad is not None]
        norms.append(float(torch.linalg.vector_norm(
            torch.stack([torch.linalg.vector_norm(g) for g in grads]))))

    handle = register_optimizer_step_pre_hook(record)
    try:
        fit(_model(vocab), train, None,
            TrainConfig(epochs=1, lr=0.05, clip_grad=None, progress=False))
        unclipped, norms[:] = list(norms), []
        fit(_model(vocab), train, None,
            TrainConfig(epochs=1, lr=0.05, clip_grad=0.01, progress=False))
    finally:
        handle.remove()
    assert min(unclipped) > 0.01  # the limit binds on every step ...
    assert len(norms) == len(unclipped) and max(norms) <= 0.01 * (1 + 1e-4)
