"""Accepted: PyTorch's index_select, written straight into the output."""

import torch


def solve(table: torch.Tensor, indices: torch.Tensor, out: torch.Tensor, num_tokens: int, vocab: int, dim: int) -> None:
    torch.index_select(table, 0, indices, out=out)
