"""Accepted: the PyTorch starter completed as its comment says: torch.bincount over every bin,
written into the int32 counts."""

import torch


def solve(data: torch.Tensor, counts: torch.Tensor, n: int, num_bins: int) -> None:
    counts.copy_(torch.bincount(data, minlength=num_bins))
