"""Wrong: one scale per token, from the absmax over all of its heads, stored for every head.
Each head must have its own: a quiet head quantized on a loud head's scale loses its precision."""

import torch


def solve(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, num_blocks, block_size, num_kv_heads, head_dim, padding):  # fmt: skip
    live = slot_mapping >= 0
    slots = slot_mapping[live].long()
    for x, cache, scale in ((key, k_cache, k_scale), (value, v_cache, v_scale)):
        rows = x[live].float()
        s = rows.abs().flatten(1).amax(dim=-1, keepdim=True) / 127  # [tokens, 1]: all heads
        s = s.expand(-1, num_kv_heads)
        q = torch.round(rows / torch.where(s > 0, s, torch.ones_like(s))[..., None])
        cache.view(-1, num_kv_heads, head_dim)[slots] = q.to(torch.int8)
        scale.view(-1, num_kv_heads)[slots] = s
