"""Rejected: a Triton submission whose work is PyTorch's index_select (forbidden in the source;
on a GPU the profiler would also see ATen's index kernel)."""

import torch


def solve(table: torch.Tensor, indices: torch.Tensor, out: torch.Tensor, num_tokens: int, vocab: int, dim: int) -> None:
    torch.index_select(table, 0, indices, out=out)
