"""The results pipe that carries a child's outputs back to the judge."""

from __future__ import annotations

import fcntl
import os

from sandbox.pool import RESULTS_PIPE_BYTES, results_pipe


def test_the_results_pipe_has_a_wide_buffer() -> None:
    read_end, write_end = results_pipe()
    try:
        # 1 MiB instead of Linux's 64 KiB: a 1 GiB output crosses in 2.0 s instead of 4.8 s (bench/pipe_probe.py).
        assert fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ) == RESULTS_PIPE_BYTES == 1 << 20
        os.write(write_end, b"x")
        assert os.read(read_end, 1) == b"x"
    finally:
        os.close(read_end)
        os.close(write_end)
