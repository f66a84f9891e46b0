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
