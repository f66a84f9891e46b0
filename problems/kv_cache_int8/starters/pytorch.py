import torch


def solve(
    key: torch.Tensor,
    value: torch.Tensor,
    slot_mapping: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
    num_blocks: int,
    block_size: int,
    num_kv_heads: int,
    head_dim: int,
    padding: int,
) -> None:
    # For key (into k_cache, k_scale) and value (into v_cache, v_scale): keep the tokens whose
    # slot_mapping is >= 0. Per (token, head) row: absmax over head_dim in fp32, s = absmax / 127,
    # q = round half to even (x / s) as int8 (s = 0 and q = 0 for a row of zeros). Write q and s at
    # the token's slot of the cache viewed as [num_blocks * block_size, num_kv_heads, head_dim].
    raise NotImplementedError
