"""Trusted reference for row-wise top-k. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_000E
_CHUNK = 1 << 24  # elements per slice of rows when ranking (bounds the int64 keys' memory)
_LOW = (1 << 32) - 1


def generate_inputs(seed: int, device: str = "cpu", *, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """x = scale * N(0, 1) + offset (fp32, never 0, so -0 and +0 never meet), with ties planted
    where they decide the answer: in every row a few positions are overwritten with values of
    rank 0 .. k (the maximum, the k-th value and the one just outside), and every fourth row of
    64 or more columns is rounded to a grid of scale / 8, so many equal values straddle rank k.
    Ties are ordered by index (lower first): a kernel that breaks them any other way fails."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 4.0, generator=gen_params))
    offset = float(torch.empty(1, dtype=torch.float64).uniform_(-2.0, 2.0, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    x = torch.randn(m, n, generator=gen, device=device)
    if n >= 64 and m >= 4:
        coarse = x[3::4]
        coarse.copy_((torch.floor(coarse * 8) + 0.5) / 8)
    x.mul_(scale).add_(offset)
    ranks = min(n, k + 1)
    planted = max(2, min(8, n // 16)) if n >= 2 else 0
    step = max(1, _CHUNK // n)
    for start in range(0, m if planted else 0, step):
        part = x[start : start + step]
        top = torch.topk(part, ranks, dim=1).values
        rows = torch.arange(part.shape[0], device=device)
        for _ in range(planted):
            source = torch.randint(0, ranks, (part.shape[0], 1), generator=gen, device=device)
            dest = torch.randint(0, n, (part.shape[0],), generator=gen, device=device)
            part[rows, dest] = top.gather(1, source)[:, 0]
    x[x == 0] = scale / 2
    return {"x": x.contiguous()}


def ranking_keys(x: torch.Tensor) -> torch.Tensor:
    """int64 keys whose order is the ranking: the value's order in the high 32 bits (the fp32
    bits with the low 31 flipped for negatives), the complement of the column index in the low
    32 (a lower index ranks higher among equal values). No two keys of a row are equal."""
    bits = x.contiguous().view(torch.int32).to(torch.int64)
    ordered = bits ^ ((bits >> 31) & 0x7FFF_FFFF)
    cols = torch.arange(x.shape[1], device=x.device, dtype=torch.int64)
    return ordered * (1 << 32) + (_LOW - cols)


def reference(x: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """The k largest values per row in descending order and their column indices, equal values
    ordered by lower index: the first k entries of a stable descending sort of the row."""
    values = torch.empty(m, k, dtype=torch.float64, device=x.device)
    indices = torch.empty(m, k, dtype=torch.int32, device=x.device)
    step = max(1, _CHUNK // n)
    for start in range(0, m, step):
        part = x[start : start + step]
        top = torch.topk(ranking_keys(part), k, dim=1, sorted=True).values
        cols = _LOW - (top & _LOW)
        values[start : start + step] = part.double().gather(1, cols)
        indices[start : start + step] = cols.to(torch.int32)
    return {"values": values, "indices": indices}


def baseline(x: torch.Tensor, m: int, n: int, k: int) -> dict[str, torch.Tensor]:
    """Plain PyTorch (torch.topk), for the speedup only: it does not promise the tie order."""
    top = torch.topk(x, k, dim=1)
    return {"values": top.values, "indices": top.indices.to(torch.int32)}
