import torch


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    # Write the sum of x into out[0] (out is allocated by the judge); return nothing.
    raise NotImplementedError
