"""Wrong: guards the zero row by clamping absmax to 1e-8 instead of the stated rule; a row of
zeros stores s = 1e-8 / 127 where the rule says s = 0 (the other rows are right)."""

import torch


def solve(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, num_blocks, block_size, num_kv_heads, head_dim, padding):  # fmt: skip
    live = slot_mapping >= 0
    slots = slot_mapping[live].long()
    for x, cache, scale in ((key, k_cache, k_scale), (value, v_cache, v_scale)):
        rows = x[live].float()
        s = rows.abs().amax(dim=-1).clamp_min(1e-8) / 127
        q = torch.round(rows / s[..., None])
        cache.view(-1, num_kv_heads, head_dim)[slots] = q.to(torch.int8)
        scale.view(-1, num_kv_heads)[slots] = s
