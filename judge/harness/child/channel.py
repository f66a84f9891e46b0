"""The child's end of the two channels: frames to the parent (fd 4), its answers (fd 3); and
the two ways a job ends early (Stop after an error frame, Violation of a rule)."""

from __future__ import annotations

import json
import select
import sys
import time
from typing import Any, BinaryIO

from judge.harness.common import frames, framing


class Stop(Exception):
    """Ends the job early after a frame that explains why was sent."""


class Violation(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


def spin_until_readable(fd: int, seconds: float) -> None:
    """Poll fd without sleeping for up to `seconds` (then return: the caller's read blocks).
    A process blocked in read() for the tens of milliseconds the parent spends checking a
    batch wakes up hundreds of microseconds late (an idle core's sleep state), and that wake-up
    lands inside the parent's clock around the next batch (docs/judging.md section 2)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    end = time.monotonic() + seconds
    while not poller.poll(0) and time.monotonic() < end:
        pass


class Channel:
    def __init__(self, writer: BinaryIO | None, reader: BinaryIO | None) -> None:
        self.writer = writer
        self.reader = reader
        self.spin_seconds = 0.0  # GPU hosts: how long ask() spins before it blocks

    def send(self, frame: frames.Frame, blob: Any = None) -> None:
        if self.writer is None:  # ncu mode: what ends the run goes to stderr, which the parent logs
            if isinstance(frame, frames.Error | frames.Violation):
                print(json.dumps(frames.encode(frame)), file=sys.stderr, flush=True)
            return
        framing.write_frame(self.writer, frames.encode(frame), blob)

    def wait_go(self) -> bool:
        return self.wait_answer().go

    def wait_answer(self) -> frames.Go:
        """The parent's answer to an await: go on or stop, after a shape's timing maybe with
        retime (time the shape again)."""
        return self.ask(frames.Await())

    def ask(self, frame: frames.Frame) -> frames.Go:
        """Send a frame the parent answers (an Await, a Call) and read its Go; a stop when the
        channel broke. The parent is trusted: an answer that does not decode is the judge's own
        fault, and the ForgedFrame it raises ends the job as one."""
        self.send(frame)
        if self.reader is None:
            return frames.Go(go=True)
        if self.spin_seconds > 0:
            spin_until_readable(self.reader.fileno(), self.spin_seconds)
        try:
            header, _ = framing.read_frame(self.reader, max_blob=0)
        except (framing.ChannelClosed, framing.FrameError):
            return frames.Go(go=False)
        return frames.decode_answer(header)
