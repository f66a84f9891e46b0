"""Wrong: `y = ...` binds a new tensor to the local name; the judge's output is never written."""

import torch


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    y = x.t().contiguous()  # noqa: F841
