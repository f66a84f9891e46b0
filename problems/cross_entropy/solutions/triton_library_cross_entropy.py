"""Rejected: a Triton submission whose solve() lets torch.nn.functional.cross_entropy compute the
loss (forbidden in the source)."""

import torch


def solve(logits: torch.Tensor, targets: torch.Tensor, loss: torch.Tensor, m: int, v: int) -> None:
    loss.copy_(torch.nn.functional.cross_entropy(logits.float(), targets.long()).reshape(1))
