"""Accepted: the PyTorch starter completed as its comment says: the rows picked by indexing the
table with the indices, written into out."""

import torch


def solve(table: torch.Tensor, indices: torch.Tensor, out: torch.Tensor, num_tokens: int, vocab: int, dim: int) -> None:
    out.copy_(table[indices])
