"""The child's end of the two channels: frames to the parent (fd 4), its answers (fd 3); and
the two ways a job ends early (Stop after an error frame, Violation of a rule)."""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO

from judge.harness.common import framing


class Stop(Exception):
    """Ends the job early after a frame that explains why was sent."""


class Violation(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class Channel:
    def __init__(self, writer: BinaryIO | None, reader: BinaryIO | None) -> None:
        self.writer = writer
        self.reader = reader

    def send(self, header: dict[str, Any], blob: Any = None) -> None:
        if self.writer is None:
            if header.get("kind") in ("error", "violation"):
                print(json.dumps(header), file=sys.stderr, flush=True)
            return
        framing.write_frame(self.writer, header, blob)

    def wait_go(self) -> bool:
        return bool(self.wait_answer().get("go"))

    def wait_answer(self) -> dict[str, Any]:
        """The parent's answer to an await: {go: bool}, after a shape's timing maybe with
        retime: true (time the shape again). {} when the channel broke."""
        return self.ask({"kind": "await"})

    def ask(self, header: dict[str, Any]) -> dict[str, Any]:
        """Send a frame the parent answers ("await", a call request) and read the answer."""
        self.send(header)
        if self.reader is None:
            return {"go": True}
        try:
            header, _ = framing.read_frame(self.reader, max_blob=0)
        except (framing.ChannelClosed, framing.FrameError):
            return {}
        return header
