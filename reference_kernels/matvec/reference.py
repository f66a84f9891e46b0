"""Trusted reference for the bf16 matrix-vector product. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_000B
_CHUNK = 1 << 26  # elements of w drawn at a time (no float32 copy of a 1 GiB weight matrix)


def generate_inputs(seed: int, device: str = "cpu", *, m: int, k: int) -> dict[str, torch.Tensor]:
    """w, x = scale * N(0, 1) + offset in bf16, with a small common offset (at most 0.1 scale):
    a large one would make every output about k * offset_w * offset_x and hide a low-precision
    kernel's error behind one shared term."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    sw, sx = (float(v) for v in torch.empty(2, dtype=torch.float64).uniform_(0.02, 0.5, generator=gen_params))
    ow, ox = (float(v) for v in torch.empty(2, dtype=torch.float64).uniform_(-0.1, 0.1, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    w = torch.empty(m, k, dtype=torch.bfloat16, device=device)
    flat = w.view(-1)
    for start in range(0, flat.numel(), _CHUNK):
        part = torch.randn(min(_CHUNK, flat.numel() - start), generator=gen, device=device)
        flat[start : start + part.numel()] = part.mul_(sw).add_(ow * sw)
    x = torch.randn(k, generator=gen, device=device).mul_(sx).add_(ox * sx).to(torch.bfloat16)
    return {"w": w, "x": x}


def reference(w: torch.Tensor, x: torch.Tensor, m: int, k: int) -> dict[str, torch.Tensor]:
    # Row blocks keep the float64 copy small: the exact products of the bf16 values, summed in float64.
    x64 = x.double()
    rows = max(1, _CHUNK // max(k, 1))
    return {"y": torch.cat([w[r : r + rows].double() @ x64 for r in range(0, m, rows)])}


def baseline(w: torch.Tensor, x: torch.Tensor, m: int, k: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch that meets the tolerance: widen to fp32, then torch.mv (a bf16 torch.mv
    would round the outputs to bf16). The point a submission's speedup is measured from."""
    return {"y": torch.mv(w.float(), x.float())}
