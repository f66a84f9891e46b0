"""index_select of the live rows, the scale as absmax * (1 / 127) and q as x * (1 / s) computed in
place (one fp32 copy of a tensor's rows at a time: the gpu_only case of 2.1M tokens stays well
inside the GPU memory limit), index_copy_ into the flat caches."""

import torch


def solve(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, num_blocks, block_size, num_kv_heads, head_dim, padding):  # fmt: skip
    live = torch.nonzero(slot_mapping >= 0).squeeze(1)
    slots = slot_mapping.index_select(0, live).long()
    for x, cache, scale in ((key, k_cache, k_scale), (value, v_cache, v_scale)):
        rows = x.index_select(0, live).float()
        s = rows.abs().amax(dim=-1, keepdim=True).mul_(1.0 / 127.0)  # within an ulp of absmax / 127
        inv = torch.where(s > 0, 1.0 / s, torch.zeros_like(s))
        q = rows.mul_(inv).round_().clamp_(-127, 127).to(torch.int8)
        cache.view(-1, num_kv_heads, head_dim).index_copy_(0, slots, q)
        scale.view(-1, num_kv_heads).index_copy_(0, slots, s.squeeze(-1))
