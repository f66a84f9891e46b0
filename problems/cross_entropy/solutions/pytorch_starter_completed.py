"""Accepted: the PyTorch starter completed the plain way: cross_entropy on the logits widened to
fp32 (as autocast does), copied into loss."""

import torch


def solve(logits: torch.Tensor, targets: torch.Tensor, loss: torch.Tensor, m: int, v: int) -> None:
    loss.copy_(torch.nn.functional.cross_entropy(logits.float(), targets.long()).reshape(1))
