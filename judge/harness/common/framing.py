"""Framed messages between the trusted parent and the sandboxed child (stdlib only).

A frame is a 4-byte big-endian length, then that many bytes of a UTF-8 JSON object (the
header). A header carrying `"blob": N` is followed by exactly N raw bytes (an output tensor, a
compiled library). The reader enforces limits on both parts: a child that forges a length, sends
a header that is not a JSON object, nests it deeper than any frame of the judge or promises a
larger blob than the reader allows gets a FrameError, never an unbounded allocation or a
recursion the reader dies of.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import select
import struct
import time
from collections.abc import Callable
from typing import Any, BinaryIO

MAX_HEADER_BYTES = 1 << 20
# No frame of the judge nests deeper than the child's job (five levels); json's decoder recurses
# once per level and raises RecursionError near Python's recursion limit.
MAX_DEPTH = 16
_LENGTH = struct.Struct(">I")


class FrameError(ValueError):
    """The peer sent something that is not a well-formed frame within the limits."""


class ChannelClosed(EOFError):
    """The peer closed the channel cleanly between two frames."""


def write_frame(out: BinaryIO, header: dict[str, Any], blob: bytes | bytearray | memoryview | None = None) -> None:
    """Write one frame (header, optional blob) and flush."""
    if blob is not None:
        header = {**header, "blob": len(memoryview(blob).cast("B"))}
    data = json.dumps(header, separators=(",", ":"), allow_nan=True).encode()
    if len(data) > MAX_HEADER_BYTES:
        raise FrameError(f"header of {len(data)} bytes exceeds {MAX_HEADER_BYTES}")
    out.write(_LENGTH.pack(len(data)) + data)
    if blob is not None:
        out.write(memoryview(blob).cast("B"))
    out.flush()


def _read_exact(src: BinaryIO, size: int, what: str) -> bytearray:
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        n = src.readinto(view[got:])  # type: ignore[attr-defined]
        if not n:
            raise FrameError(f"channel closed after {got} of {size} bytes of {what}")
        got += n
    return buf


def read_frame(
    src: BinaryIO, *, max_blob: int = 0, max_header: int = MAX_HEADER_BYTES
) -> tuple[dict[str, Any], bytearray | None]:
    """Read one frame. Raises ChannelClosed at a clean end, FrameError on anything malformed."""
    first = src.read(_LENGTH.size)
    if not first:
        raise ChannelClosed("channel closed")
    if len(first) < _LENGTH.size:
        first = bytes(first) + bytes(_read_exact(src, _LENGTH.size - len(first), "a frame length"))
    (length,) = _LENGTH.unpack(first)
    if length == 0 or length > max_header:
        raise FrameError(f"frame header length {length} outside 1..{max_header}")
    raw = _read_exact(src, length, "a frame header")
    try:
        header = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise FrameError(f"frame header nests deeper than {MAX_DEPTH} levels") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise FrameError(f"frame header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise FrameError("frame header must be a JSON object")
    if _deeper_than(header, MAX_DEPTH):
        raise FrameError(f"frame header nests deeper than {MAX_DEPTH} levels")
    if "blob" not in header:
        return header, None
    size = header["blob"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise FrameError(f"bad blob size {size!r}")
    if size > max_blob:
        raise FrameError(f"blob of {size} bytes exceeds the allowed {max_blob}")
    return header, _read_exact(src, size, "a blob")


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether JSON containers nest more than `limit` levels (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def open_reader(fd: int) -> BinaryIO:
    return os.fdopen(fd, "rb", buffering=1 << 16)


def open_writer(fd: int) -> BinaryIO:
    return os.fdopen(fd, "wb", buffering=1 << 16)


class ForgedFrame(Exception):
    pass


def write_job_quietly(out: Any, job: dict[str, Any], blob: bytes | None) -> None:
    """Send the child its job; a child that died first is explained by its exit, not here."""
    with contextlib.suppress(OSError, ValueError):
        write_frame(out, job, blob)


def pump_frames(
    stream: Any,
    out: queue.Queue[tuple[float, dict[str, Any] | None, Any]],
    max_blob: int,
    spin: Callable[[], bool] | None = None,
) -> None:
    """Read frames into `out` as (arrival time, header, blob) until the channel ends; the end
    arrives as (time, None, the exception). Whatever reading raises ends the channel this way,
    so the parent never waits out a limit behind a reader that died. While spin() is true (a
    call the parent's clock times is out), the reader polls without sleeping, so that the
    arrival is stamped without a wake-up's delay; otherwise it sleeps in poll, rechecking spin()
    every millisecond. The parent reads the child's frames unbuffered (parent/launch.py): data
    waiting in a buffer would not wake the poll."""
    poller: Any = None
    if spin is not None and isinstance(stream, io.FileIO):
        poller = select.poll()
        poller.register(stream.fileno(), select.POLLIN)
    while True:
        while poller is not None and spin is not None and not poller.poll(0 if spin() else 1):
            pass
        try:
            header, blob = read_frame(stream, max_blob=max_blob)
        except (ChannelClosed, OSError, ValueError) as exc:
            if isinstance(exc, OSError | ValueError) and not isinstance(exc, FrameError):
                exc = ChannelClosed(str(exc))
            out.put((time.monotonic(), None, exc))
            return
        except Exception as exc:  # e.g. MemoryError: still a frame the judge cannot take
            out.put((time.monotonic(), None, FrameError(f"unreadable frame: {type(exc).__name__}")))
            return
        out.put((time.monotonic(), header, blob))
