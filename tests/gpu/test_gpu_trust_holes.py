"""The trust boundary on GPU hosts (docs/judging.md, "The trust boundary").

On parent-owned memory (GRIDSTRIDE_PARENT_MEMORY=1 on a GPU host) the parent owns every input
and output in device memory of its own (CUDA IPC), flushes the L2 before each go and bounds
every batch of calls with its clock. What a submission changes inside its own process (its
channel, its checks) must not change a verdict, or a score beyond that bound. The kernel list is
still the child's word there, and on the GPU's default path (the child makes its own inputs)
the drains and the flush are too: those tests are strict xfails until the holes close (an
XPASS fails the suite, so the marker goes).
"""

from __future__ import annotations

import pytest

from tests.gpu.gpu_helpers import judge, own_config, parent_config
from tests.gpu.test_gpu_paths import PYTORCH_ADD, TRITON_ADD

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

HOLE = "the kernel list is still the child's word (docs/judging.md, 'The trust boundary')"
OWN_HOLE = "the GPU's default path takes this from the child (docs/judging.md, 'The trust boundary')"


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
    report = judge(source, "triton", config=parent_config())
    assert report.verdict == "rejected" and "library-compute" in report.message, report.message


def test_forged_times_do_not_hide_work_left_on_a_side_stream() -> None:
    source = (
        PATCH_SEND
        + """
import torch
_side = torch.cuda.Stream()


def _rewrite(header):
    if header.get("kind") == "called" and isinstance(header.get("us"), list):
        header["us"] = [1.0] * len(header["us"])  # every timed call claims 1 us
    if header.get("kind") == "times":
        header["times_us"] = [1.0] * len(header["times_us"])  # and the shape's times agree
    return header


_patch(_rewrite)


def solve(a, b, c, n):
    torch.cuda.synchronize()
    with torch.cuda.stream(_side):
        for _ in range(8):
            torch.add(a, b, out=c)
"""
    )
    report = judge(source, "pytorch", config=parent_config())
    print(f"side-stream forger: {report.verdict}: {report.message[:300]}", flush=True)
    if report.verdict == "rejected":
        assert "forged-timing" in report.message, report.message
        return
    honest = judge(PYTORCH_ADD, "pytorch", config=parent_config())
    assert report.verdict == honest.verdict == "accepted", (report.message, honest.message)
    for cheat, fair in zip(report.benchmarks, honest.benchmarks, strict=True):
        # Printed before the check: the figures are what a cut run most needs to show.
        print(f"  {cheat.name}: forger {cheat.median_us:.1f} us, honest {fair.median_us:.1f} us, "
              f"{cheat.median_us / fair.median_us:.2f}x (8 adds a call: about 8x when all are timed)", flush=True)  # fmt: skip
    for cheat, fair in zip(report.benchmarks, honest.benchmarks, strict=True):
        assert cheat.median_us >= 4 * fair.median_us, (cheat, fair)


def test_an_input_overwritten_with_the_childs_own_checks_switched_off_is_caught() -> None:
    source = (
        PATCH_SEND
        + """
import torch

runner = _patch(lambda header: header)
runner.check_after_call = lambda *args, **kwargs: None  # the child's own identity checks, gone


def solve(a, b, c, n):
    torch.add(a, b, out=c)
    a.zero_()  # the parent compares the inputs with its own copy after every call
"""
    )
    report = judge(source, "pytorch", config=parent_config())
    assert report.verdict == "rejected" and "inputs-modified" in report.message, report.message


def test_the_l2_flush_is_the_parents() -> None:
    # The child's flusher switched off changes nothing: on parent-owned memory the parent
    # flushes before each go, and each call of a batch has its own region.
    source = (
        PATCH_SEND
        + """
import torch

runner = _patch(lambda header: header)
runner.flusher.flush = lambda *args, **kwargs: None


def solve(x, y, m, n):
    torch.softmax(x, dim=1, out=y)
"""
    )
    honest = "import torch\n\n\ndef solve(x, y, m, n):\n    torch.softmax(x, dim=1, out=y)\n"
    config = parent_config()
    skipped = judge(source, "pytorch", problem="softmax", config=config)
    fair = judge(honest, "pytorch", problem="softmax", config=config)
    assert skipped.verdict == fair.verdict == "accepted", (skipped.message, fair.message)
    for cheat, ok in zip(skipped.benchmarks, fair.benchmarks, strict=True):
        assert cheat.median_us >= 0.9 * ok.median_us, (cheat, ok)


@pytest.mark.xfail(strict=True, reason=OWN_HOLE)
def test_own_memory_forged_drains_do_not_hide_work_left_on_a_side_stream() -> None:
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
    report = judge(source, "pytorch", config=own_config())
    # On the H200 the side stream's work is outside the events (its drain took 1573 us against
    # 10 us honest, docs/judging.md): only the drain rule can name it.
    assert report.verdict == "rejected" and "hidden-work" in report.message, report.message


@pytest.mark.xfail(strict=True, reason=OWN_HOLE)
def test_own_memory_a_skipped_l2_flush_is_seen() -> None:
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
    report = judge(source, "pytorch", problem="softmax", config=own_config())
    assert report.verdict == "rejected", report.message
