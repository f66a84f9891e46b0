"""Statistics the parent computes from raw times: median CI by order statistics, geometric mean."""

from __future__ import annotations

import math
import random

import pytest

from judge.harness.common.stats import ci_converged, geometric_mean, median_ci_ranks, summarize


@pytest.mark.parametrize(
    ("n", "ranks"),
    # Tabulated distribution-free 95% intervals for the median (1-based (x_l, x_u) minus one).
    [(6, (0, 5)), (9, (1, 7)), (10, (1, 8)), (20, (5, 14)), (50, (17, 32)), (100, (39, 60))],
)
def test_median_ci_ranks_match_the_binomial_tables(n: int, ranks: tuple[int, int]) -> None:
    assert median_ci_ranks(n) == ranks


def test_tiny_samples_get_the_whole_range_as_their_interval() -> None:
    assert median_ci_ranks(1) == (0, 0)
    assert median_ci_ranks(5) == (0, 4)


def test_the_interval_covers_the_true_median_at_least_95_percent_of_the_time() -> None:
    rng = random.Random(1)
    hits = 0
    trials = 2000
    for _ in range(trials):
        sample = [rng.expovariate(1.0) for _ in range(30)]  # skewed, like kernel times
        s = summarize(sample)
        hits += s.ci_low <= math.log(2) <= s.ci_high
    assert hits / trials >= 0.94


def test_large_samples_use_the_normal_approximation_and_stay_symmetric() -> None:
    lo, hi = median_ci_ranks(5000)
    assert lo + hi == 4999 and 2420 < lo < 2440


def test_summary_reports_order_statistics_of_the_raw_times() -> None:
    s = summarize([5.0, 1.0, 3.0, 2.0, 4.0])
    assert (s.n, s.median, s.mean, s.min, s.max) == (5, 3.0, 3.0, 1.0, 5.0)
    assert s.p10 == pytest.approx(1.4) and s.p90 == pytest.approx(4.6)
    assert (s.ci_low, s.ci_high) == (1.0, 5.0)


def test_ci_converged_needs_the_half_width_within_the_target() -> None:
    tight = [100.0 + 0.01 * (i % 7) for i in range(50)]
    loose = [100.0 * (1 + 0.2 * ((i * 37) % 11 - 5) / 5) for i in range(50)]
    assert ci_converged(tight, 0.005)
    assert not ci_converged(loose, 0.005)
    assert not ci_converged([1.0, 1.0], 0.5)  # too few samples to say


def test_geometric_mean_is_the_exponential_of_the_mean_log() -> None:
    assert geometric_mean([1.0, 100.0]) == pytest.approx(10.0)
    assert geometric_mean([2.0, 8.0, 4.0]) == pytest.approx(4.0)


def test_geometric_mean_in_log_space_neither_underflows_nor_overflows() -> None:
    tiny = [1e-300] * 400
    huge = [1e300] * 400
    assert geometric_mean(tiny) == pytest.approx(1e-300)
    assert geometric_mean(huge) == pytest.approx(1e300)
    # The naive product would be 0 or inf here.
    assert math.prod(tiny) == 0.0 and math.prod(huge) == math.inf


@pytest.mark.parametrize("bad", [[], [1.0, 0.0], [1.0, -2.0], [1.0, math.nan], [math.inf]])
def test_geometric_mean_refuses_values_that_are_not_positive_and_finite(bad: list[float]) -> None:
    with pytest.raises(ValueError):
        geometric_mean(bad)
