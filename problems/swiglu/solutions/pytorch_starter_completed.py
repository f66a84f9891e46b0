"""Accepted: the PyTorch starter completed as its comment says, in the tensors' own bf16: SiLU of
gate times up, copied into out. PyTorch rounds the SiLU to bf16 before the product, so the result
is rounded twice: inside the tolerance (docs/tolerances.md lists it as info)."""

import torch


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    out.copy_(torch.nn.functional.silu(gate) * up)
