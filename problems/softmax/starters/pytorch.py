import torch


def solve(x: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    # Write the row-wise softmax of x into y (allocated by the judge); return nothing.
    raise NotImplementedError
