"""What is still the child's word on GPU hosts (docs/judging.md, "The trust boundary").

On the GPU the child still reports its own kernel list, drains and times, and runs the L2 flush
itself; a submission can change any of them from inside its process. Each test below plants
one such forgery and asserts what the judge should conclude once the parent measures it; they
are strict xfails until then (an XPASS, the hole closed, fails the suite so the marker goes).
"""

from __future__ import annotations

import pytest

from tests.gpu.gpu_helpers import judge
from tests.gpu.test_gpu_paths import TRITON_ADD

pytestmark = pytest.mark.gpu

# Finds the child's runner and wraps its channel's send (an instance attribute); `rewrite`
# changes a frame's fields as a dict ({"kind": ..., field: value}).
PATCH_SEND = """
import dataclasses
import gc

def _patch(rewrite):
    runner = next(o for o in gc.get_objects() if type(o).__name__ == "Runner")
    real = runner.channel.send

    def send(frame, blob=None):
        fields = {f.name: getattr(frame, f.name) for f in dataclasses.fields(frame)}
        changed = rewrite({"kind": frame.kind, **fields})
        changed.pop("kind")
        return real(dataclasses.replace(frame, **changed), blob)

    runner.channel.send = send
    return runner
"""

HOLE = "the GPU path still takes this from the child (docs/judging.md, 'The trust boundary')"


@pytest.mark.xfail(strict=True, reason=HOLE)
def test_a_forged_kernel_list_does_not_hide_library_compute() -> None:
    source = (
        TRITON_ADD
        + PATCH_SEND
        + """
import torch
_op = getattr(torch, "".join(["ad", "d"]))  # library compute, hidden from the source scan


def _rewrite(header):
    if header.get("kind") == "kernels":
        header["names"] = [["add_kernel", 40.0]]  # what an honest Triton add would list
    return header


_patch(_rewrite)


def solve(a, b, c, n):
    _op(a, b, out=c)
"""
    )
    report = judge(source, "triton")
    assert report.verdict == "rejected" and "library-compute" in report.message, report.message


@pytest.mark.xfail(strict=True, reason=HOLE)
def test_forged_drains_do_not_hide_work_left_on_a_side_stream() -> None:
    source = (
        PATCH_SEND
        + """
import torch
_side = torch.cuda.Stream()


def _rewrite(header):
    if header.get("kind") == "times":
        header["drains_us"] = [5.0] * len(header.get("drains_us", []))  # every call drained at once
    return header


_patch(_rewrite)


def solve(a, b, c, n):
    torch.cuda.synchronize()
    with torch.cuda.stream(_side):
        for _ in range(8):
            torch.add(a, b, out=c)
"""
    )
    report = judge(source, "pytorch")
    # On the H200 the side stream's work is outside the events (its drain took 1573 us against
    # 10 us honest, docs/judging.md): only the drain rule can name it.
    assert report.verdict == "rejected" and "hidden-work" in report.message, report.message


@pytest.mark.xfail(strict=True, reason=HOLE)
def test_a_skipped_l2_flush_is_seen() -> None:
    source = (
        PATCH_SEND
        + """
import torch

runner = _patch(lambda header: header)
runner.flusher.flush = lambda *args, **kwargs: None  # an instance attribute: the flush is skipped


def solve(x, y, m, n):
    torch.softmax(x, dim=1, out=y)
"""
    )
    report = judge(source, "pytorch", problem="softmax")
    assert report.verdict == "rejected", report.message
