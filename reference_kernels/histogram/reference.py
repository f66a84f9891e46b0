"""Trusted reference for the histogram. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0008
HOT_BINS = 8


def generate_inputs(seed: int, device: str = "cpu", *, n: int, num_bins: int) -> dict[str, torch.Tensor]:
    """data in [0, num_bins): a share p (drawn in [0.05, 0.5]) of the values falls on a few hot
    bins, the rest is uniform. Real data is skewed, and skew is what makes atomics contend: a
    kernel that is fast only on uniform data is not measured as fast."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    hot_share = float(torch.empty(1, dtype=torch.float64).uniform_(0.05, 0.5, generator=gen_params))
    hot = torch.randint(0, num_bins, (min(num_bins, HOT_BINS),), generator=gen_params, dtype=torch.int32)
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    data = torch.randint(0, num_bins, (n,), generator=gen, device=device, dtype=torch.int32)
    is_hot = torch.rand(n, generator=gen, device=device) < hot_share
    pick = torch.randint(0, hot.numel(), (n,), generator=gen, device=device)
    data = torch.where(is_hot, hot.to(device)[pick], data)
    return {"data": data.contiguous()}


def reference(data: torch.Tensor, n: int, num_bins: int) -> dict[str, torch.Tensor]:
    return {"counts": torch.bincount(data.long(), minlength=num_bins).to(torch.int32)}


def baseline(data: torch.Tensor, n: int, num_bins: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch, in the output dtype: the point a submission's speedup is measured from."""
    return {"counts": torch.bincount(data, minlength=num_bins).to(torch.int32)}
