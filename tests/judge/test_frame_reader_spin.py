"""The parent's frame reader and the child's wait for its go on GPU hosts (common/framing.py,
child/channel.py): polling without sleeping while a timed call is out must deliver every frame,
whether or not it spins, and never stall on data it cannot see."""

from __future__ import annotations

import os
import queue
import threading
import time

from judge.harness.child.channel import spin_until_readable
from judge.harness.common.framing import pump_frames, write_frame


def read_all(spin: object) -> list[dict]:
    r, w = os.pipe()
    stream = os.fdopen(r, "rb", buffering=0)
    out: queue.Queue = queue.Queue()
    reader = threading.Thread(target=pump_frames, args=(stream, out, 1 << 10), kwargs={"spin": spin}, daemon=True)
    reader.start()
    with os.fdopen(w, "wb") as writer:
        for i in range(20):  # frames back to back: several may arrive in one read
            write_frame(writer, {"kind": "stage", "i": i})
        time.sleep(0.01)
        write_frame(writer, {"kind": "stage", "i": 20}, b"xyz")
    headers = []
    while True:
        _arrived, header, _blob = out.get(timeout=10)
        if header is None:
            return headers
        headers.append(header)


def test_every_frame_arrives_whether_the_reader_spins_or_sleeps() -> None:
    for spin in (None, lambda: True, lambda: False):
        headers = read_all(spin)
        assert [h["i"] for h in headers] == list(range(21)), spin


def test_the_childs_spin_returns_as_soon_as_the_answer_is_there_and_gives_up_after_its_time() -> None:
    r, w = os.pipe()
    try:
        began = time.monotonic()
        spin_until_readable(r, 0.05)  # nothing comes: it stops spinning after 50 ms
        assert 0.04 <= time.monotonic() - began < 1.0
        os.write(w, b"x")
        began = time.monotonic()
        spin_until_readable(r, 5.0)
        assert time.monotonic() - began < 0.5
    finally:
        os.close(r)
        os.close(w)
