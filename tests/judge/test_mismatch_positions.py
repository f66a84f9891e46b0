"""Where the wrong elements are: first, last, count and an even stride, from the judge's compare()."""

from __future__ import annotations

import torch

from judge.harness.common.tensors import compare


def _compare(expected: torch.Tensor, got: torch.Tensor):  # type: ignore[no-untyped-def]
    return compare(expected, got, atol=1e-6, rtol=1e-6)


def test_only_the_last_element_missing_is_said_so() -> None:
    ref = torch.arange(1, 1001, dtype=torch.float32)
    got = ref.clone()
    got[-1] = float("nan")
    pos = _compare(ref, got).positions
    assert pos == {"first": 999, "last": 999, "count": 1, "total": 1000}


def test_every_32nd_element_wrong_is_a_stride() -> None:
    ref = torch.randn(64, 64) + 5
    got = ref.clone()
    got.view(-1)[31::32] += 1.0
    pos = _compare(ref, got).positions
    assert pos is not None and pos["stride"] == 32 and pos["first"] == 31 and pos["count"] == 128


def test_a_contiguous_tail_is_a_run_of_stride_one() -> None:
    ref = torch.randn(300) + 5
    got = ref.clone()
    got[256:] = 0.0
    pos = _compare(ref, got).positions
    assert pos == {"first": 256, "last": 299, "count": 44, "total": 300, "stride": 1}


def test_scattered_wrong_elements_have_no_stride_and_a_right_answer_no_positions() -> None:
    ref = torch.randn(100) + 5
    got = ref.clone()
    got[[3, 10, 50]] += 1.0
    pos = _compare(ref, got).positions
    assert pos is not None and "stride" not in pos and (pos["first"], pos["last"]) == (3, 50)
    assert _compare(ref, ref.clone()).positions is None


def test_a_sampled_check_reports_positions_in_the_whole_output() -> None:
    ref = torch.randn(1000) + 5
    got_whole = ref.clone()
    got_whole[700] += 1.0
    sample = torch.tensor([5, 700, 999])
    pos = compare(ref, got_whole[sample], atol=1e-6, rtol=1e-6, positions=sample).positions
    assert pos == {"first": 700, "last": 700, "count": 1, "total": 1000}
