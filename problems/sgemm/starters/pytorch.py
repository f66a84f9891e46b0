import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    # Write a @ b into c (allocated by the judge) in fp32; return nothing.
    raise NotImplementedError
