"""Accepted: torch.bincount (int64 counts), copied into the int32 output."""

import torch


def solve(data: torch.Tensor, counts: torch.Tensor, n: int, num_bins: int) -> None:
    counts.copy_(torch.bincount(data, minlength=num_bins))
