"""Learning-rate schedules: the Noam formula, LambdaLR stepping, fit and resume."""

import math

import pytest
import torch

from lamalib.train import StepOutput, TrainConfig, fit
from lamalib.train.schedule import (
    SCHEDULES,
    build_scheduler,
    get_schedule,
    learning_rates,
)


def paper_noam(step: int, d_model: int, warmup: int) -> float:
    """Vaswani et al. (2017), section 5.3."""
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


@pytest.mark.parametrize("d_model,warmup", [(512, 4000), (64, 10), (128, 1)])
def test_noam_with_the_papers_peak_is_the_papers_formula(d_model, warmup):
    peak = d_model**-0.5 * warmup**-0.5
    steps = list(range(1, 3 * warmup + 50))
    ours = learning_rates("noam", peak, warmup, len(steps))
    for s, lr in zip(steps, ours):
        assert lr == pytest.approx(paper_noam(s, d_model, warmup), rel=1e-12)
    assert max(ours) == pytest.approx(peak)  # the peak is at s = warmup


def test_linear_warmup_and_constant_by_hand():
    assert learning_rates("linear_warmup", 0.1, 4, 6) == pytest.approx(
        [0.025, 0.05, 0.075, 0.1, 0.1, 0.1]
    )
    assert learning_rates("constant", 0.1, 0, 3) == [0.1, 0.1, 0.1]


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_scheduler_gives_each_update_the_rate_of_its_step(name):
    param = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([param], lr=0.3)
    scheduler = build_scheduler(optimizer, name, warmup_steps=5, total_steps=10)
    used = []
    for _ in range(12):  # the loop of fit: update, then step the schedule
        used.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert used == pytest.approx(learning_rates(name, 0.3, 5, 12, total_steps=10))


def test_decaying_schedules_by_hand():
    # warm-up over 2 updates, peak at update 2, 0 at update 6 and after
    assert learning_rates("warmup_linear_decay", 1.0, 2, 7, total_steps=6) == (
        pytest.approx([0.5, 1.0, 0.75, 0.5, 0.25, 0.0, 0.0]))
    assert learning_rates("warmup_cosine", 1.0, 2, 7, total_steps=6) == (
        pytest.approx([0.5, 1.0, (1 + math.cos(math.pi / 4)) / 2, 0.5,
                       (1 + math.cos(3 * math.pi / 4)) / 2, 0.0, 0.0]))
    with pytest.raises(ValueError, match="total_steps"):
        get_schedule("warmup_cosine", 10)


def test_unknown_name_and_missing_warmup_are_refused():
    with pytest.raises(ValueError, match="unknown schedule"):
        get_schedule("cosine")
    with pytest.raises(ValueError, match="warmup_steps >= 1"):
        build_scheduler(torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], 0.1),
                        "noam", 0)


class _Batch:
    def to(self, device):
        return self


class _Slope(torch.nn.Module):
    """loss = w: a constant gradient of 1, so each Adam update moves w by its lr."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(()))


def _slope_step(model, batch):
    return StepOutput(model.w * 1.0, 0, 1)


def _config(**kw):
    return TrainConfig(lr=0.01, schedule="noam", warmup_steps=3, patience=100,
                       progress=False, device="cpu", **kw)


def test_fit_steps_the_schedule_once_per_update():
    model = _Slope()
    fit(model, [_Batch()] * 2, None, _config(epochs=4), step=_slope_step)
    # Adam's update on a constant gradient is exactly lr (up to eps), so w moves by
    # the sum of the scheduled rates of the 8 updates.
    expected = -sum(learning_rates("noam", 0.01, 3, 8))
    assert float(model.w.detach()) == pytest.approx(expected, rel=1e-5)
    assert not math.isclose(expected, -0.08)  # differs from a constant rate


def test_resume_continues_the_schedule(tmp_path):
    straight = _Slope()
    fit(straight, [_Batch()] * 2, None, _config(epochs=4), step=_slope_step)
    resumed = _Slope()
    fit(resumed, [_Batch()] * 2, None,
        _config(epochs=2, checkpoint_dir=tmp_path), step=_slope_step)
    fit(resumed, [_Batch()] * 2, None,
        _config(epochs=4, checkpoint_dir=tmp_path), step=_slope_step)
    assert float(resumed.w.detach()) == pytest.approx(float(straight.w.detach()),
                                                      rel=1e-6)
