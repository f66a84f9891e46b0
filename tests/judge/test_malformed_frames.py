"""Framing (docs/judging.md section 6, malformed-frame): a frame the child's harness never sends,
written by the submission to the judge's result channel, ends the judging at once as
`rejected`, naming the rule; the judge never waits out the time limit for it."""

from __future__ import annotations

import struct
import time

import pytest

from judge.harness.common import framing
from tests.judge.judging_helpers import judge

# The submission writes raw bytes to the judge's result channel (fd 4) as it is imported; the
# bytes are built there (a 200 KB literal would exceed the 64 KiB source limit).
SOURCE = """
import os, struct, sys
import torch

fd = int(sys.argv[sys.argv.index("--out-fd") + 1]) if "--out-fd" in sys.argv else 4
os.write(fd, {data})

def solve(a, b, c, n):
    torch.add(a, b, out=c)
"""


def frame(header: bytes) -> bytes:
    return struct.pack(">I", len(header)) + header


# What each submission writes: a Python expression for the bytes.
FRAMES = {
    "not JSON": repr(frame(b"not json!")),
    "not UTF-8": repr(frame(b'{"kind": "\xff"}')),
    "200k nested arrays": "struct.pack('>I', 200_000) + b'[' * 200_000",
    "40k nested objects": "struct.pack('>I', 200_000) + b'{\"a\":' * 40_000",
    "an oversized length prefix": repr(struct.pack(">I", 0xFFFFFFFF) + b"{}"),
    "a header that is not an object": repr(frame(b"[]")),
    "an unknown kind": repr(frame(b'{"kind": "boom"}')),
    "a kind that is not a string": repr(frame(b'{"kind": [1]}')),
    "an ill-typed field": repr(frame(b'{"kind": "stage", "stage": "testing", "done": "x", "total": 1}')),
    "a blob larger than any output": repr(frame(b'{"kind": "output", "name": "c", "blob": 1073741824}')),
    "a timing the judge did not ask for": repr(frame(b'{"kind": "timing_start", "shape": 0}')),
}


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_a_malformed_frame_is_rejected_at_once_naming_the_rule(name: str) -> None:
    began = time.monotonic()
    report = judge(SOURCE.format(data=FRAMES[name]))
    took = time.monotonic() - began
    assert report.verdict == "rejected", (name, report.verdict, report.message)
    assert report.message.startswith("rule broken (malformed-frame): "), report.message
    # The child's start-up is most of this; the run's 60 s limit is never waited out.
    assert took < 30, took


def test_deep_nesting_is_a_frame_error_not_a_recursion_error() -> None:
    import io

    with pytest.raises(framing.FrameError, match="nest"):
        framing.read_frame(io.BytesIO(frame(b"[" * 200_000)))


def test_nesting_deeper_than_any_frame_of_the_judge_is_refused() -> None:
    import io

    depth = framing.MAX_DEPTH + 1
    with pytest.raises(framing.FrameError, match="nest"):
        framing.read_frame(io.BytesIO(frame(b'{"a":' + b"[" * depth + b"]" * depth + b"}")))
    ok = framing.MAX_DEPTH - 1
    header, _ = framing.read_frame(io.BytesIO(frame(b'{"a":' + b"[" * ok + b"]" * ok + b"}")))
    assert "a" in header


def test_the_frame_reader_reports_any_failure_as_the_channels_end() -> None:
    import io
    import queue

    out: queue.Queue = queue.Queue()  # type: ignore[type-arg]
    framing.pump_frames(io.BytesIO(frame(b"[" * 200_000)), out, max_blob=0)
    _, header, problem = out.get_nowait()
    assert header is None and isinstance(problem, framing.FrameError)
