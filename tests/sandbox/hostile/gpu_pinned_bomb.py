"""Pin host memory past the job's memory limit (pinned pages are charged to the memory cgroup)."""

import json

import torch

pinned = []
for _ in range(64):
    pinned.append(torch.empty(1 << 30, dtype=torch.uint8, pin_memory=True))
    pinned[-1].fill_(1)
print(json.dumps({"pinned_gib": len(pinned)}))
