"""compare() works a chunk at a time (judge/harness/common/tensors.py): the verdict, the counts,
the error figures and the listed mismatches must not depend on where the chunks fall."""

from __future__ import annotations

import math

import pytest
import torch

from judge.harness.common import tensors


def outputs() -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    gen = torch.Generator().manual_seed(7)
    ref = torch.randn(13, 29, generator=gen, dtype=torch.float64)
    near = ref + 1e-9 * torch.randn(13, 29, generator=gen, dtype=torch.float64)
    wrong = near.clone()
    wrong.view(-1)[[3, 64, 65, 200, 376]] += 1.0  # across several 7-element chunks
    unwritten = near.clone()
    unwritten.view(-1)[100:140] = math.nan
    ref_inf = ref.clone()
    ref_inf.view(-1)[[5, 90]] = math.inf
    got_inf = near.clone()
    got_inf.view(-1)[[5, 90]] = math.inf
    ints = torch.randint(-100, 100, (17, 11), generator=gen, dtype=torch.int32)
    ints_bad = ints.clone()
    ints_bad.view(-1)[[0, 50, 186]] = tensors.INT_POISON["int32"]
    return [
        ("float32", ref, near),
        ("float32", ref, wrong),
        ("float32", ref, unwritten),
        ("float32", ref_inf, got_inf),
        ("int32", ints, ints),
        ("int32", ints, ints_bad),
    ]


@pytest.mark.parametrize(("dtype", "ref", "got"), outputs())
def test_chunks_of_seven_give_what_one_chunk_gives(
    dtype: str, ref: torch.Tensor, got: torch.Tensor, monkeypatch: pytest.MonkeyPatch
) -> None:
    tol = {"atol": 1e-6, "rtol": 1e-5, "atol_rms": 1e-6, "rel_l2": 1e-3, "dtype_name": dtype}
    whole = tensors.compare(ref, got, **tol)
    monkeypatch.setattr(tensors, "_COMPARE_CHUNK", 7)
    chunked = tensors.compare(ref, got, **tol)
    assert (chunked.passed, chunked.mismatch_count, chunked.unwritten, chunked.reason) == (
        whole.passed,
        whole.mismatch_count,
        whole.unwritten,
        whole.reason,
    )
    assert repr(chunked.mismatches) == repr(whole.mismatches)  # repr: an unwritten element's nan != nan
    assert chunked.positions == whole.positions
    for name in ("max_abs_err", "max_rel_err", "rel_l2"):
        a, b = getattr(chunked, name), getattr(whole, name)
        assert a == b or math.isclose(a, b, rel_tol=1e-12), name


def test_a_sampled_check_lists_its_mismatches_at_their_place_in_the_whole_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ref = torch.arange(100, dtype=torch.float32).reshape(10, 10)
    positions = torch.tensor([3, 17, 42, 58, 99])
    got = ref.reshape(-1)[positions].clone()
    got[[1, 4]] += 5.0
    monkeypatch.setattr(tensors, "_COMPARE_CHUNK", 2)
    result = tensors.compare(ref, got, atol=0.5, rtol=0.0, positions=positions)
    assert result.mismatch_count == 2 and [m["index"] for m in result.mismatches] == [[1, 7], [9, 9]]
    assert result.positions == {"first": 17, "last": 99, "count": 2, "total": 100, "stride": 82}
