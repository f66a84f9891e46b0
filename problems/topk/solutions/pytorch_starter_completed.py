"""Accepted: the PyTorch starter completed the plain way. A stable sort in descending order keeps
equal values in column order, so its first k entries are the answer, ties included."""

import torch


def solve(x: torch.Tensor, values: torch.Tensor, indices: torch.Tensor, m: int, n: int, k: int) -> None:
    ranked = torch.sort(x, dim=1, descending=True, stable=True)
    values.copy_(ranked.values[:, :k])
    indices.copy_(ranked.indices[:, :k])
