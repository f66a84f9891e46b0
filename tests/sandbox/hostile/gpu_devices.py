"""Which GPU device nodes and devices can the job see?"""

import json
import os

import torch

nodes = sorted(n for n in os.listdir("/dev") if n.startswith("nvidia"))
opened = {}
for i in range(16):
    path = f"/dev/nvidia{i}"
    try:
        os.close(os.open(path, os.O_RDWR))
        opened[path] = "opened"
    except OSError as e:
        if e.errno != 2:
            opened[path] = e.strerror
print(
    json.dumps(
        {
            "nodes": nodes,
            "device_count": torch.cuda.device_count(),
            "opened": opened,
            "name": torch.cuda.get_device_name(0),
        }
    )
)
