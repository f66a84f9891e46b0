"""Accepted: the unfused composition in fp32 (SiLU of the widened gate, times the widened up),
copied into out, which rounds it once to bf16."""

import torch


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    g = gate.float()
    out.copy_(g * torch.sigmoid(g) * up.float())
