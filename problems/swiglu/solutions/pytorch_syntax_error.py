"""Compile error: an unclosed parenthesis (a Python syntax error)."""

import torch


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    g = gate.float()
    out.copy_(g * torch.sigmoid(g) * up.float()
