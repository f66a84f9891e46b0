"""Each contest scoring format's math on known inputs, and the board's ranking with ties."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from gridstride.contests import scoring
from gridstride.contests.board import Standing, interval_text, rank
from gridstride.leaderboards.scoring import TIE_MIN_SAMPLES, score_interval

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def shape(median: float, ci_pct: float = 1.0, ref: float | None = None, samples: int = 100) -> dict:
    half = median * ci_pct / 100
    return {
        "name": f"s{median}",
        "n": samples,
        "median_us": median,
        "ci_low_us": median - half,
        "ci_high_us": median + half,
        "reference_median_us": ref,
    }


def run(
    sid: int, problem: int, minutes: float, verdict: str = "accepted", shapes: list[dict] | None = None
) -> scoring.Run:
    shapes = shapes or []
    score = math.exp(sum(math.log(s["median_us"]) for s in shapes) / len(shapes)) if shapes else None
    return scoring.Run(
        submission_id=sid,
        problem_id=problem,
        created_at=T0 + timedelta(minutes=minutes),
        minutes=minutes,
        verdict=verdict,
        score_us=score if verdict == "accepted" else None,
        benchmarks=shapes,
    )


def test_the_registry_holds_the_three_formats_and_the_default_is_the_geometric_mean_of_runtime() -> None:
    assert {"geomean_runtime", "geomean_speedup", "solved_penalty"} <= set(scoring.FORMATS)
    assert scoring.DEFAULT_FORMAT == "geomean_runtime"
    assert scoring.get("no-such-format").key == "geomean_runtime"


def test_geomean_runtime_is_the_geometric_mean_over_every_shape_of_each_problems_fastest_run() -> None:
    runs = [
        run(1, 10, 5, shapes=[shape(100.0), shape(400.0)]),  # geomean 200
        run(2, 10, 9, shapes=[shape(50.0), shape(200.0)]),  # geomean 100: the faster one counts
        run(3, 10, 12, verdict="wrong_answer"),
        run(4, 20, 20, shapes=[shape(8.0)]),
    ]
    score = scoring.FORMATS["geomean_runtime"].score(runs)
    assert score.solved == 2
    assert score.best == {10: 2, 20: 4}
    # Shapes pooled over the problems: (50 * 200 * 8) ** (1/3) = 43.0887...
    assert score.value == pytest.approx((50 * 200 * 8) ** (1 / 3))
    assert score.low == pytest.approx((49.5 * 198 * 7.92) ** (1 / 3))
    assert score.high == pytest.approx((50.5 * 202 * 8.08) ** (1 / 3))
    assert score.achieved_at == T0 + timedelta(minutes=20)


def test_geomean_speedup_scores_the_inverse_speedup_and_shows_the_speedup() -> None:
    runs = [
        run(1, 10, 1, shapes=[shape(100.0, ref=200.0), shape(100.0, ref=800.0)]),  # speedups 2 and 8: 4x
        run(2, 10, 2, shapes=[shape(100.0, ref=150.0), shape(100.0, ref=150.0)]),  # 1.5x: not the best
    ]
    score = scoring.FORMATS["geomean_speedup"].score(runs)
    assert score.best == {10: 1}
    assert score.value == pytest.approx(1 / 4)
    assert score.low == pytest.approx(math.sqrt(99 / 200 * 99 / 800))
    assert score.text == "4.00\u00d7"


def test_solved_penalty_counts_minutes_to_first_accept_plus_twenty_per_failed_try_before_it() -> None:
    runs = [
        run(1, 10, 3.5, verdict="wrong_answer"),
        run(2, 10, 7, verdict="compile_error"),  # free
        run(3, 10, 12.9),  # solved at minute 12, one penalized failure: 32
        run(4, 10, 30, verdict="wrong_answer"),  # after the solve: ignored
        run(5, 20, 45),  # 45
        run(6, 30, 50, verdict="time_limit"),  # unsolved: its failure costs nothing
    ]
    score = scoring.FORMATS["solved_penalty"].score(runs)
    assert (score.solved, score.value, score.low, score.high) == (2, 77.0, 77.0, 77.0)
    assert score.best == {10: 3, 20: 5}


def standing(pid: int, solved: int, value: float | None, low: float | None, high: float | None) -> Standing:
    score = scoring.Score(solved=solved, value=value, low=low, high=high, achieved_at=T0 + timedelta(minutes=pid))
    return Standing(participant_id=pid, name=f"p{pid}", score=score)


def test_the_board_ranks_solved_first_then_value_and_ties_overlapping_intervals_like_practice_boards() -> None:
    rows = rank(
        [
            standing(1, 1, 100.0, 99.0, 101.0),
            standing(2, 1, 100.5, 100.8, 101.5),  # overlaps 1's interval: tied with 1
            standing(3, 1, 110.0, 109.0, 111.0),
            standing(4, 2, 500.0, 490.0, 510.0),  # more solved: first, whatever its time
            standing(5, 0, None, None, None),
        ]
    )
    assert [(r.participant_id, r.rank, r.tied) for r in rows] == [
        (4, 1, False),
        (1, 2, True),
        (2, 2, True),
        (3, 4, False),
        (5, 5, False),
    ]


def test_equal_penalties_tie_and_different_ones_do_not() -> None:
    rows = rank([standing(1, 2, 77.0, 77.0, 77.0), standing(2, 2, 77.0, 77.0, 77.0), standing(3, 2, 78.0, 78.0, 78.0)])
    assert [(r.rank, r.tied) for r in rows] == [(1, True), (1, True), (3, False)]


# Two participants' runs whose intervals overlap by far (70-130 us and 84-156 us; speedups over
# a 200 us reference alike): frozen inputs for the tie rule contest boards share with practice boards.
OVERLAPPING = (100.0, 120.0)


@pytest.mark.parametrize("fmt", ["geomean_runtime", "geomean_speedup"])
@pytest.mark.parametrize(
    ("samples", "tied"), [(3, False), (TIE_MIN_SAMPLES - 1, False), (TIE_MIN_SAMPLES, True), (200, True)]
)
def test_overlapping_intervals_tie_only_when_every_shape_was_timed_often_enough(
    fmt: str, samples: int, tied: bool
) -> None:
    scores = [
        scoring.FORMATS[fmt].score([run(pid, 10, pid, shapes=[shape(median, 30.0, ref=200.0, samples=samples)])])
        for pid, median in enumerate(OVERLAPPING, start=1)
    ]
    rows = rank([Standing(participant_id=pid, name=f"p{pid}", score=s) for pid, s in enumerate(scores, start=1)])
    assert [(r.participant_id, r.rank, r.tied) for r in rows] == (
        [(1, 1, True), (2, 1, True)] if tied else [(1, 1, False), (2, 2, False)]
    )
    # Without enough samples the score has no interval, shown as a dash as on practice boards.
    assert all((s.low is None) is not tied for s in scores)
    assert all((interval_text(fmt, s) == "\u2014") is not tied for s in scores)


def test_a_contest_score_interval_is_the_practice_boards_interval_over_the_counted_shapes() -> None:
    shapes = [shape(50.0, samples=40), shape(200.0, samples=12), shape(8.0, samples=TIE_MIN_SAMPLES)]
    runs = [run(1, 10, 1, shapes=shapes[:2]), run(2, 20, 2, shapes=shapes[2:])]
    score = scoring.FORMATS["geomean_runtime"].score(runs)
    assert (score.low, score.high) == score_interval(shapes)
    # One counted problem timed too few times leaves the pooled score without an interval.
    runs.append(run(3, 30, 3, shapes=[shape(9.0, samples=3)]))
    assert scoring.FORMATS["geomean_runtime"].score(runs).low is None
