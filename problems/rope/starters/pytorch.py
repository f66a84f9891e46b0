import torch


def solve(
    q: torch.Tensor,
    k: torch.Tensor,
    positions: torch.Tensor,
    q_out: torch.Tensor,
    k_out: torch.Tensor,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> None:
    # Angles in fp32: inv_freq = theta ** (-2 i / head_dim) for i < head_dim / 2, angle =
    # positions[:, None] * inv_freq; rotate each pair (a, b) of q and k to (a cos - b sin, b cos + a sin),
    # pairs (2i, 2i + 1) when layout == 1, (i, i + head_dim / 2) when layout == 2; write q_out, k_out.
    raise NotImplementedError
