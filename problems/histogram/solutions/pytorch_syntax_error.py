"""Compile error: unbalanced brackets (a Python syntax error)."""

import torch


def solve(data: torch.Tensor, counts: torch.Tensor, n: int, num_bins: int) -> None:
    counts.copy_(torch.bincount(data, minlength=[num_bins))
