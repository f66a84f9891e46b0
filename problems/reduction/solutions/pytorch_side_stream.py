"""Rejected (work hidden from the timer): the sum runs on a private CUDA stream and solve()
returns without making the caller's stream wait, so the harness's end event fires at once.

The result is right by the time anyone synchronises the device; the judge must see that the
device did not drain when the measured call ended.
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
