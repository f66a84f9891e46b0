"""Both tensors at once: key and value stacked, one quantization, index_copy_ into the flat caches."""

import torch


def solve(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, num_blocks, block_size, num_kv_heads, head_dim, padding):  # fmt: skip
    live = torch.nonzero(slot_mapping >= 0).squeeze(1)
    slots = slot_mapping.index_select(0, live).long()
    rows = torch.stack((key.index_select(0, live), value.index_select(0, live))).float()
    s = rows.abs().amax(dim=-1, keepdim=True) * (1.0 / 127.0)  # within an ulp of absmax / 127
    inv = torch.where(s > 0, 1.0 / s, torch.zeros_like(s))
    q = torch.round(rows * inv).clamp_(-127, 127).to(torch.int8)
    for i, (cache, scale) in enumerate(((k_cache, k_scale), (v_cache, v_scale))):
        cache.view(-1, num_kv_heads, head_dim).index_copy_(0, slots, q[i])
        scale.view(-1, num_kv_heads).index_copy_(0, slots, s[i].squeeze(-1))
