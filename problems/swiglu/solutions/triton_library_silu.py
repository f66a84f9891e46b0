"""Rejected: a Triton submission that lets torch.nn.functional.silu do the work (forbidden in the
source: the point is to write the kernel)."""

import torch


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    out.copy_(torch.nn.functional.silu(gate.float()) * up.float())
