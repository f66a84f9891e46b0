"""How fast does a child's output cross the results pipe, by pipe buffer size?

    python3 bench/pipe_probe.py [--mib 1024]

A forked writer sends one output frame (judge.harness.common.framing, as the child does) of --mib MiB;
the parent reads it as the judge does. Once with Linux's default pipe buffer (64 KiB), once
with sandbox.pool.RESULTS_PIPE_BYTES; and, for comparison, through a shared-memory file
(memfd: the writer pwrites, the reader preads into a fresh buffer). CPU only.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judge.harness.common import framing
from sandbox.pool import RESULTS_PIPE_BYTES


def transfer_seconds(size: int, pipe_bytes: int | None) -> float:
    payload = bytearray(size)  # allocated before the fork: only the transfer is timed
    read_end, write_end = os.pipe()
    if pipe_bytes:
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, pipe_bytes)
    began = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        writer = framing.open_writer(write_end)
        framing.write_frame(writer, {"kind": "output"}, memoryview(payload))
        writer.flush()
        os._exit(0)
    os.close(write_end)
    reader = framing.open_reader(read_end)
    _, blob = framing.read_frame(reader, max_blob=size)
    elapsed = time.perf_counter() - began
    os.waitpid(pid, 0)
    assert blob is not None and len(blob) == size
    return elapsed


def memfd_seconds(size: int) -> float:
    payload = bytearray(size)
    fd = os.memfd_create("probe")
    began = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        view = memoryview(payload)
        done = 0
        while done < size:
            done += os.pwrite(fd, view[done:], done)
        os._exit(0)
    os.waitpid(pid, 0)
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        got += os.preadv(fd, [view[got:]], got)
    elapsed = time.perf_counter() - began
    os.close(fd)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mib", type=int, default=1024)
    args = parser.parse_args()
    size = args.mib << 20
    for label, pipe_bytes in (("default (64 KiB)", None), (f"{RESULTS_PIPE_BYTES >> 10} KiB", RESULTS_PIPE_BYTES)):
        seconds = transfer_seconds(size, pipe_bytes)
        print(f"{label:18s} {args.mib} MiB in {seconds:.2f} s ({size / seconds / 1e9:.2f} GB/s)")
    seconds = memfd_seconds(size)
    print(f"{'memfd':18s} {args.mib} MiB in {seconds:.2f} s ({size / seconds / 1e9:.2f} GB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
