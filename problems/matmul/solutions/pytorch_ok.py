"""Accepted: the PyTorch language may call the vendor GEMM; the product goes into c."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    torch.matmul(a, b, out=c)
