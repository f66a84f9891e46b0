"""The parent's clock on a shape's timed batches (judge/harness/parent/clock.py): what it adds to
the claims, and when a contradiction is forged-timing. Synthetic figures; the real child and
parent are in test_trust_boundary.py."""

from __future__ import annotations

import dataclasses
import random

from judge.harness.parent import clock

ALLOWANCE = clock.Allowance(wall_us=300.0, cpu_us=50.0, rel=0.05)


def calibration(handshake_us: float = 1000.0, jitter_us: float = 100.0) -> clock.Calibration:
    rng = random.Random(1)
    calls = [
        clock.CallClock(
            claim_us=3200.0,
            span_us=3200.0 + handshake_us + rng.uniform(-jitter_us, jitter_us),
            cpu_us=3200.0 + 800.0 + rng.uniform(-jitter_us, jitter_us),
            call_cpu_us=3200.0,
            calls=16,
        )
        for _ in range(8)
    ]
    return clock.Calibration.from_calls(calls)


def batches(true_us: float, claim_us: float, handshake_us: float = 1000.0, n: int = 6) -> list[clock.CallClock]:
    """n batches of 32 calls whose true time is true_us per batch, claiming claim_us."""
    rng = random.Random(2)
    return [
        clock.CallClock(
            claim_us=claim_us,
            span_us=true_us + handshake_us + rng.uniform(-100.0, 100.0),
            cpu_us=true_us + 800.0 + rng.uniform(-100.0, 100.0),
            calls=32,
        )
        for _ in range(n)
    ]


def test_honest_batches_keep_their_claims_up_to_the_handshakes_noise() -> None:
    cal = calibration()
    check = clock.check_calls(batches(10_000.0, 10_000.0), cal, ALLOWANCE)
    assert not check.forged and check.broken == []
    # At most what the handshake ran above the calibration's fastest tenth: 2% of the batch.
    assert all(0.0 <= a <= 0.02 * 10_000.0 for a in check.added_us)


def test_a_mild_forger_is_scored_at_the_judges_clock_not_rejected() -> None:
    cal = calibration()
    check = clock.check_calls(batches(10_000.0, 8_000.0), cal, ALLOWANCE)  # claims 20% less
    assert not check.forged
    # Each batch counts at least its true time: the claims plus what the judge adds.
    assert all(8_000.0 + a >= 10_000.0 - 100.0 for a in check.added_us)


def test_a_gross_forger_is_rejected_with_both_figures() -> None:
    cal = calibration()
    check = clock.check_calls(batches(10_000.0, 10.0), cal, ALLOWANCE)  # claims a thousandth
    assert check.forged and "wall" in check.broken
    message = check.message("1M", cal, 32)
    assert "reported a median of 10.0 us per batch of up to 32 calls" in message
    assert "the judge's own clock saw a median of" in message


def test_work_moved_to_another_thread_shows_in_the_span() -> None:
    """The main thread idles while a helper thread computes: the CPU figure sees nothing, the
    wall figure sees it all."""
    cal = calibration()
    calls = [clock.CallClock(claim_us=10.0, span_us=10_000.0 + 1000.0, cpu_us=10.0 + 800.0, calls=32) for _ in range(6)]
    check = clock.check_calls(calls, cal, ALLOWANCE)
    assert check.forged and check.broken == ["wall"]


def test_a_noisy_host_widens_the_rejection_bound_never_the_score() -> None:
    """A loaded host (calibration p10-p90 spread of 4 ms): a batch that ran 3 ms slower than
    claimed is not a rejection, but the judge still adds what its clock saw."""
    cal = calibration(jitter_us=2000.0)
    calls = batches(10_000.0, 10_000.0, handshake_us=4000.0)
    check = clock.check_calls(calls, cal, ALLOWANCE)
    assert not check.forged
    assert min(check.added_us) > 1000.0


def test_a_loaded_hosts_preemptions_between_calls_are_not_forgery_but_still_counted() -> None:
    """On a host with far more runnable threads than cores, the child is preempted between its
    calls (where no claim holds the time) in every batch: seen on a 2-core host at load 10-17, an
    honest batch of 14 calls claimed 2340 us where the judge's clock saw 8924 us. The kernel's
    run-queue accounting says how long the child waited: taken off the gap for the verdict, never
    off what the batch counts."""
    cal = calibration()
    preempted = [
        clock.CallClock(
            claim_us=b.claim_us, span_us=b.span_us + 6_000.0, cpu_us=b.cpu_us, calls=b.calls, wait_us=6_000.0
        )
        for b in batches(2_400.0, 2_400.0)
    ]
    check = clock.check_calls(preempted, cal, ALLOWANCE)
    assert not check.forged and "wall" not in check.broken
    assert all(a >= 6_000.0 - 200.0 for a in check.added_us)  # the score holds the wait
    # The same gaps without the kernel's word for a wait: rejected.
    unexplained = [dataclasses.replace(b, wait_us=0.0) for b in preempted]
    assert clock.check_calls(unexplained, cal, ALLOWANCE).forged


def gpu_calls(per_call_us: float, calls: int, gap_per_call_us: float, batch_gap_us: float, n: int = 8) -> list:
    """n GPU-style batches: each call carries the judge's own flush and cover (gap_per_call_us),
    each batch one handshake (batch_gap_us), with some jitter."""
    rng = random.Random(3)
    return [
        clock.CallClock(
            claim_us=per_call_us * calls,
            span_us=(per_call_us + gap_per_call_us) * calls + batch_gap_us + rng.uniform(-20.0, 20.0),
            calls=calls,
        )
        for _ in range(n)
    ]


def test_on_a_gpu_batches_of_different_sizes_compare_per_call() -> None:
    # The calibration's batches hold 8 calls, the timing's 32: per batch the timing's gap is four
    # times larger (each call's flush and cover), per call the two agree.
    cal = clock.Calibration.from_calls([clock.per_call(go) for go in gpu_calls(100.0, 8, 80.0, 200.0)])
    timed = gpu_calls(60.0, 32, 80.0, 200.0)
    per_batch = clock.check_calls(timed, clock.Calibration.from_calls(gpu_calls(100.0, 8, 80.0, 200.0)), ALLOWANCE)
    assert min(per_batch.added_us) > 1000.0  # batch sizes differ: the honest run would be charged
    check = clock.check_calls([clock.per_call(go) for go in timed], cal, ALLOWANCE, ranked=True)
    assert not check.forged and max(check.added_us) == 0.0, check


def test_a_ranked_score_ignores_jitter_below_the_calibrations_p90_but_counts_what_is_beyond() -> None:
    cal = clock.Calibration.from_calls([clock.per_call(go) for go in gpu_calls(100.0, 16, 80.0, 200.0)])
    honest = [clock.per_call(go) for go in gpu_calls(100.0, 16, 80.0, 200.0)]
    spread = cal.wall_p90_us - cal.wall_p10_us
    kept = clock.check_calls(honest, cal, ALLOWANCE, ranked=True).added_us
    assert sorted(kept)[len(kept) // 2] == 0.0 and max(kept) <= spread, (kept, spread)
    # The same calls, each claiming 20 us less than it took: the clock gives it back.
    forged = [dataclasses.replace(go, claim_us=go.claim_us - 20.0) for go in honest]
    added = clock.check_calls(forged, cal, ALLOWANCE, ranked=True).added_us
    # What the clock gives back is the 20 us give or take the call's own jitter about the p90 (at most
    # the batch jitter's whole range, 40 us over 16 calls).
    assert all(20.0 - 2.5 <= a <= 20.0 + 2.5 for a in added), (added, spread)
    # Unranked (CPU hosts) counts from the fastest tenth: honest jitter shows there.
    assert max(clock.check_calls(honest, cal, ALLOWANCE).added_us) > 0.0
