"""Compile error: a missing comma between keyword arguments (a Python syntax error)."""

import torch


def solve(x: torch.Tensor, values: torch.Tensor, indices: torch.Tensor, m: int, n: int, k: int) -> None:
    ranked = torch.sort(x, dim=1, descending=True stable=True)
    values.copy_(ranked.values[:, :k])
