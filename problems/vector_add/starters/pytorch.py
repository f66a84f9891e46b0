import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    # Write the result into c (allocated by the judge); return nothing.
    raise NotImplementedError
