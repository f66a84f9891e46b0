"""Trusted reference for the embedding gather. Runs only in the trusted process."""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0007
_CHUNK = 1 << 26  # table elements drawn at a time (a float32 staging copy of a 4 GiB table is not needed)


def generate_inputs(
    seed: int, device: str = "cpu", *, num_tokens: int, vocab: int, dim: int
) -> dict[str, torch.Tensor]:
    """table = scale * N(0, 1) + offset in bf16; indices uniform over the vocabulary, with the
    first and the last row always among them (the table's edges, and the offsets past 2^31
    elements of a large table, are exercised on every case with two or more tokens)."""
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = float(torch.empty(1, dtype=torch.float64).uniform_(0.5, 4.0, generator=gen_params))
    offset = float(torch.empty(1, dtype=torch.float64).uniform_(-2.0, 2.0, generator=gen_params))
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    table = torch.empty(vocab, dim, dtype=torch.bfloat16, device=device)
    flat = table.view(-1)
    for start in range(0, flat.numel(), _CHUNK):
        part = torch.randn(min(_CHUNK, flat.numel() - start), generator=gen, device=device)
        flat[start : start + part.numel()] = part.mul_(scale).add_(offset)
    indices = torch.randint(0, vocab, (num_tokens,), generator=gen, device=device, dtype=torch.int32)
    if num_tokens >= 2:
        where = torch.randperm(num_tokens, generator=gen, device=device)[:2]
        indices[where[0]] = 0
        indices[where[1]] = vocab - 1
    return {"table": table, "indices": indices}


def reference(
    table: torch.Tensor, indices: torch.Tensor, num_tokens: int, vocab: int, dim: int
) -> dict[str, torch.Tensor]:
    return {"out": table[indices.long()].double()}


def baseline(
    table: torch.Tensor, indices: torch.Tensor, num_tokens: int, vocab: int, dim: int
) -> dict[str, torch.Tensor]:
    """Plain PyTorch, in the output dtype: the point a submission's speedup is measured from."""
    return {"out": torch.nn.functional.embedding(indices, table)}
