"""Wrong answer (looks for the judge's answer in memory): walks every object the garbage
collector knows, picks float64 tensors of the output's shape (the reference is computed in
float64) and copies the newest one into y. Failing that, it takes any other tensor of the right
shape that is not an argument.

In this judge the reference lives in another process, so the search finds nothing useful and
the copied data is not the softmax.
"""

import gc

import torch


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    exact, similar = [], []
    for obj in gc.get_objects():
        try:
            if not isinstance(obj, torch.Tensor) or obj is x or obj is y:
                continue
            if tuple(obj.shape) != (m, n):
                continue
        except Exception:  # noqa: BLE001 - odd objects in the heap
            continue
        (exact if obj.dtype == torch.float64 else similar).append(obj)
    source = exact[-1] if exact else (similar[-1] if similar else x)
    y.copy_(source.to(y.dtype))
