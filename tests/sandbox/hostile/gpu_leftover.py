"""argv[1] == "write": fill GPU memory with a marker and exit. "read": allocate the same amount
uninitialised and count marker words left by the previous job (must be none)."""

import json
import sys

import torch

MARKER = 0x5A17C0DE
GIB = int(sys.argv[2]) if len(sys.argv) > 2 else 16
n = (GIB << 30) // 4
if sys.argv[1] == "write":
    x = torch.full((n,), MARKER, dtype=torch.int32, device="cuda")
    torch.cuda.synchronize()
    print(json.dumps({"written_gib": GIB, "marker_words": int((x == MARKER).sum())}))
else:
    y = torch.empty((n,), dtype=torch.int32, device="cuda")
    found = int((y == MARKER).sum())
    nonzero = int((y != 0).sum())
    print(json.dumps({"marker_words": found, "nonzero_words": nonzero, "words": n}))
