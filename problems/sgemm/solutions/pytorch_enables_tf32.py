"""Rejected: switches PyTorch's fp32 matmuls to TensorFloat-32 tensor cores (the flag's name is spelled
in pieces, so the source scan does not see it). The judge snapshots the global precision flags
before solve() and finds them changed after."""

import torch

FLAG = "allow_" + "tf" + "32"


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    setattr(torch.backends.cuda.matmul, FLAG, True)
    torch.matmul(a, b, out=c)
