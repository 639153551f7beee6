"""Verdicts on a paper's claim (lamalib.experiments.claims) at their boundaries."""

import math

import pytest

from lamalib.experiments.claims import difference_verdict
from lamalib.experiments.comparison import Estimate


@pytest.mark.parametrize("mean,se,seeds,want", [
    (3.0, 1.0, 3, "reproduced"),  # 2 s.e. below the mean is still above 0
    (2.0, 1.0, 3, "not reproduced: no difference measured"),  # exactly 2 s.e.
    (1.9, 1.0, 3, "not reproduced: no difference measured"),
    (-2.1, 1.0, 3, "not reproduced: reversed"),
    (-2.0, 1.0, 3, "not reproduced: no difference measured"),
    (5.0, 0.1, 2, "probe only"),  # fewer than 3 seeds: never a verdict
    (5.0, math.nan, 3, "probe only"),
])
def test_two_standard_errors_and_three_seeds(mean, se, seeds, want):
    assert difference_verdict(Estimate(mean, se, 4), seeds) == want


def test_nothing_run():
    assert difference_verdict(Estimate(math.nan, math.nan, 0), 0) == "not run"
