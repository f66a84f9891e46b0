"""Wrong: takes the first -1 in slot_mapping for the end of the batch (padding only at the end) and
stops there; the slots of the real tokens after it keep the poison."""

import torch


def solve(key, value, slot_mapping, k_cache, v_cache, k_scale, v_scale, num_blocks, block_size, num_kv_heads, head_dim, padding):  # fmt: skip
    pads = torch.nonzero(slot_mapping < 0)
    end = int(pads[0]) if pads.numel() else slot_mapping.numel()
    slots = slot_mapping[:end].long()
    for x, cache, scale in ((key, k_cache, k_scale), (value, v_cache, v_scale)):
        rows = x[:end].float()
        s = rows.abs().amax(dim=-1) / 127
        q = torch.round(rows / torch.where(s > 0, s, torch.ones_like(s))[..., None])
        cache.view(-1, num_kv_heads, head_dim)[slots] = q.to(torch.int8)
        scale.view(-1, num_kv_heads)[slots] = s
