"""Trusted reference for the fused SwiGLU activation. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0E1E


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int) -> dict[str, torch.Tensor]:
    """gate and up = scale * N(0, 1) + offset * scale, in bf16, with scales and offsets drawn per
    seed. The gate's scale (0.5 to 6) spreads the pre-activations over SiLU's whole shape: the flat
    negative tail (below about -10 SiLU is a tiny negative number), the bend near zero and the
    nearly linear positive side; up's scale is smaller (0.25 to 2), so swapping the two is wrong."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sg = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 6.0, generator=gen_params))
    su = float(torch.empty(1, dtype=torch.float64).uniform_(0.25, 2.0, generator=gen_params))
    og, ou = (float(v) for v in torch.empty(2, dtype=torch.float64).uniform_(-0.5, 0.5, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    gate = torch.randn(m, n, generator=gen, device=device).mul_(sg).add_(og * sg).to(torch.bfloat16)
    up = torch.randn(m, n, generator=gen, device=device).mul_(su).add_(ou * su).to(torch.bfloat16)
    return {"gate": gate, "up": up}


def reference(gate: torch.Tensor, up: torch.Tensor, m: int, n: int) -> dict[str, torch.Tensor]:
    g = gate.double()
    return {"out": g * torch.sigmoid(g) * up.double()}


def baseline(gate: torch.Tensor, up: torch.Tensor, m: int, n: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch as a model runs it, in bf16 (two kernels: SiLU, then the product): the point
    a submission's speedup is measured from."""
    return {"out": torch.nn.functional.silu(gate) * up}
