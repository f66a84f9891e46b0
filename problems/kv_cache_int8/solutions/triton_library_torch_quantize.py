"""Rejected: the quantization done by PyTorch (torch.amax, torch.round, index_put_) in a Triton
submission: forbidden in the source."""

import torch


def solve(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, num_blocks, block_size, num_kv_heads, head_dim, padding):  # fmt: skip
    live = slot_mapping >= 0
    slots = slot_mapping[live].long()
    for x, cache, scale in ((key, k_cache, k_scale), (value, v_cache, v_scale)):
        rows = x[live].float()
        s = torch.amax(rows.abs(), dim=-1) / 127
        q = torch.round(rows / torch.where(s > 0, s, torch.ones_like(s))[..., None])
        cache.view(-1, num_kv_heads, head_dim).index_put_((slots,), q.to(torch.int8))
        scale.view(-1, num_kv_heads).index_put_((slots,), s)
