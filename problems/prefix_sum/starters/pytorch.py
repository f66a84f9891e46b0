import torch


def solve(x: torch.Tensor, y: torch.Tensor, n: int) -> None:
    # Write the inclusive prefix sum of x into y (allocated by the judge); return nothing.
    raise NotImplementedError
