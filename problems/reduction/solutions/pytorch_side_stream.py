"""Cheat (work hidden from the timer): the sum runs on a private CUDA stream and solve()
returns without making the caller's stream wait, hoping the harness's end event fires at once.

It must gain nothing. Either the device-wide synchronize after the end event finds the work
still running (rejected, hidden-work), or the end event waits for it: the judge's child runs
with one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1), so work queued on any stream before
the end event finishes before it. On the H200 it is the second: accepted with its full time
(a score of 5948 us in `judge selftest --quick`; the corpus checks it is no faster than pytorch_ok.py).
"""

import torch

_side = None


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    global _side
    if _side is None:
        _side = torch.cuda.Stream()
    with torch.cuda.stream(_side):
        # Deliberately slow enough to be noticed: several passes over x.
        total = x.double().sum()
        for _ in range(8):
            total = total + (x.double() * 0.0).sum()
        out.copy_(total.reshape(1).float(), non_blocking=True)
