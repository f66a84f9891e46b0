"""Runtime error: solve() raises (an exception the judge must report, not crash on)."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    if n > 0:
        raise RuntimeError("deliberate failure inside solve()")
    torch.add(a, b, out=c)
