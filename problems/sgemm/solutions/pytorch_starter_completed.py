"""Accepted: the PyTorch starter completed as its comment says: a @ b in fp32 (PyTorch's default
keeps TensorFloat-32 off), written into c."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: int, n: int, k: int) -> None:
    c.copy_(a @ b)
