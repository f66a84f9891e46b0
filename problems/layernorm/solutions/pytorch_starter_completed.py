"""Accepted: the PyTorch starter completed as its comment says: layer_norm over each row with
the starter's EPS, weight and bias, written into y."""

import torch

EPS = 1e-5


def solve(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, y: torch.Tensor, m: int, n: int) -> None:
    y.copy_(torch.nn.functional.layer_norm(x, (n,), weight, bias, eps=EPS))
