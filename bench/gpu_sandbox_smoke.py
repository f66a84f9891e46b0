"""GPU host check: can a sandboxed child see the GPU? Prints the layers and the child's output."""

from __future__ import annotations

import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
import sandbox
from sandbox.limits import Limits

CODE = "import torch; print('cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
print("capabilities:", sandbox.capabilities())
result = sandbox.run([sys.executable, "-c", CODE], limits=Limits(wall_seconds=120, cpu_seconds=120), gpu=0)
print("exit", result.exit_code, "limit", result.limit_hit)
print("stdout:", result.stdout)
print("stderr:", result.stderr[-3000:])
