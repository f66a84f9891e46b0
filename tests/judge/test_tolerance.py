"""The comparison rule of judge.spec.Tolerance: |got - ref| <= atol + atol_rms * rms(ref) +
rtol * |ref| elementwise, optional relative L2, and NaN/Inf never matching a finite reference."""

from __future__ import annotations

import math

import torch

from judge.harness.common.tensors import INT_POISON, compare


def ref_and(got: list[float], ref: list[float], **tol: float):
    return compare(torch.tensor(ref, dtype=torch.float64), torch.tensor(got, dtype=torch.float32), **tol)


def test_values_within_atol_plus_rtol_times_ref_pass() -> None:
    result = ref_and([1.0 + 1.5e-6, 100.0 + 1e-4], [1.0, 100.0], atol=1e-6, rtol=1e-6)
    assert result.passed and result.mismatch_count == 0


def test_a_value_just_outside_the_bound_fails_and_is_listed_with_its_index() -> None:
    result = ref_and([1.0, 2.0, 3.01], [1.0, 2.0, 3.0], atol=1e-3, rtol=0.0)
    assert not result.passed and result.mismatch_count == 1
    m = result.mismatches[0]
    assert m["index"] == [2] and m["expected"] == 3.0 and math.isclose(m["got"], 3.01, rel_tol=1e-6)
    assert math.isclose(m["abs_err"], 0.01, rel_tol=1e-4) and math.isclose(m["rel_err"], 0.01 / 3, rel_tol=1e-3)


def test_nan_never_matches_even_with_a_huge_tolerance() -> None:
    result = ref_and([math.nan, 1.0], [0.0, 1.0], atol=1e30, rtol=1e30)
    assert not result.passed and result.mismatch_count == 1
    assert result.unwritten == 1 and result.rel_l2 == math.inf


def test_infinity_never_matches_a_finite_reference() -> None:
    result = ref_and([math.inf, -math.inf], [1e38, -1e38], atol=1e30, rtol=10.0)
    assert not result.passed and result.mismatch_count == 2


def test_the_identical_infinity_matches_an_infinite_reference() -> None:
    result = ref_and([math.inf, 1.0], [math.inf, 1.0], atol=0.0, rtol=0.0)
    assert result.passed


def test_atol_rms_widens_the_bound_near_zero_by_the_scale_of_the_reference() -> None:
    ref = [100.0, -100.0, 0.0, 1e-3]
    got = [100.0, -100.0, 0.5, 1e-3]  # 0.5 off where the reference is ~0
    assert not ref_and(got, ref, atol=0.0, rtol=1e-2).passed
    rms = math.sqrt(sum(r * r for r in ref) / len(ref))  # ~70.7
    widened = ref_and(got, ref, atol=0.0, rtol=1e-2, atol_rms=0.5 / rms * 1.01)
    assert widened.passed
    narrower = ref_and(got, ref, atol=0.0, rtol=1e-2, atol_rms=0.5 / rms * 0.99)
    assert not narrower.passed


def test_rel_l2_catches_an_error_spread_thinly_over_every_element() -> None:
    n = 1000
    ref = [1.0] * n
    got = [1.009] * n  # every element within rtol 1e-2, but the whole output is 0.9% off
    assert ref_and(got, ref, atol=0.0, rtol=1e-2).passed
    result = ref_and(got, ref, atol=0.0, rtol=1e-2, rel_l2=5e-3)
    assert not result.passed and "relative L2" in result.reason
    assert math.isclose(result.rel_l2, 0.009, rel_tol=1e-3)


def test_mismatches_list_at_most_eight_with_multi_dimensional_indices() -> None:
    ref = torch.zeros(4, 5, dtype=torch.float64)
    got = torch.ones(4, 5, dtype=torch.float32)
    result = compare(ref, got, atol=0.1, rtol=0.0)
    assert result.mismatch_count == 20 and len(result.mismatches) == 8
    assert result.mismatches[0]["index"] == [0, 0] and result.mismatches[6]["index"] == [1, 1]


def test_integer_outputs_compare_exactly_and_count_the_poison_as_unwritten() -> None:
    ref = torch.tensor([1, 2, 3], dtype=torch.int64)
    got = torch.tensor([1, INT_POISON["int32"], 3], dtype=torch.int32)
    result = compare(ref, got, atol=0.0, rtol=0.0, dtype_name="int32")
    assert not result.passed and result.unwritten == 1


def test_bfloat16_outputs_are_compared_in_float64() -> None:
    ref = torch.tensor([1.0, 3.0], dtype=torch.float64)
    got = torch.tensor([1.0, 3.0], dtype=torch.bfloat16)
    assert compare(ref, got, atol=0.0, rtol=0.0, dtype_name="bfloat16").passed


def test_the_pre_timing_sample_spreads_over_the_whole_output_within_its_budget() -> None:
    from judge.harness.common.tensors import sample_positions

    assert sample_positions(1000, 4, phase=7, budget_bytes=4000) is None  # small: all of it
    a = sample_positions(1 << 20, 4, phase=12345, budget_bytes=64 << 10)
    assert a is not None and torch.equal(a, sample_positions(1 << 20, 4, phase=12345, budget_bytes=64 << 10))
    assert a.numel() * 4 <= 64 << 10 and a.unique().numel() == a.numel()
    assert int(a.min()) >= 0 and int(a.max()) < 1 << 20
    assert int(a.max()) > (1 << 20) * 0.99 - 1024  # reaches the end, not only the start
    b = sample_positions(1 << 20, 4, phase=999, budget_bytes=64 << 10)
    assert b is not None and not torch.equal(a, b)  # the parent's phase moves it


def test_a_sampled_comparison_uses_the_whole_outputs_rms_and_its_indices() -> None:
    from judge.harness.common.tensors import compare

    ref = torch.ones(1000, dtype=torch.float64)
    ref[:10] = 100.0  # the rms of the whole is ~10, of the sample 1
    got = ref.clone().to(torch.float32)
    got[500] += 0.5
    positions = torch.arange(400, 600)
    sampled = compare(ref, got[positions], atol=0.0, rtol=0.0, atol_rms=0.08, positions=positions)
    assert sampled.passed and sampled.total == 200  # 0.5 <= 0.08 * 10, not <= 0.08 * 1
    got[500] += 0.5
    failed = compare(ref, got[positions], atol=0.0, rtol=0.0, atol_rms=0.08, positions=positions)
    assert not failed.passed and failed.mismatches[0]["index"] == [500]
