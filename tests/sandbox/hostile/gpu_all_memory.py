"""Allocate all GPU memory, 1 GiB at a time, and hold it until exit."""

import json

import torch

free, total = torch.cuda.mem_get_info()
blocks = []
try:
    while True:
        blocks.append(torch.empty(1 << 30, dtype=torch.uint8, device="cuda"))
except torch.cuda.OutOfMemoryError:
    pass
print(json.dumps({"allocated_gib": len(blocks), "total_gib": total / (1 << 30), "free_at_start_gib": free / (1 << 30)}))
