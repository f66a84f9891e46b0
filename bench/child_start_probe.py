"""Where a judge child's start-up goes, step by step, outside the sandbox.

    python3 bench/child_start_probe.py [--processes 2]

Each process (started fresh, one after the other, with an empty Triton cache) times importing
torch, creating the CUDA context, then the warm child's own warm-up steps
(judge/harness/child/warmup.py). Compare with the report's `child_warmed_up` (the same steps inside
the sandbox) to see what the sandbox adds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time
began = time.perf_counter()
import torch
steps = {"import torch": time.perf_counter() - began}
t = time.perf_counter()
torch.cuda.init(); torch.empty(1, device="cuda"); torch.cuda.synchronize()
steps["CUDA context"] = time.perf_counter() - t
from judge.harness.child.warmup import warm_up
steps.update(warm_up("cuda"))
print(json.dumps({k: round(v, 3) for k, v in steps.items()}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    for i in range(args.processes):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "TRITON_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
            out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            print(out.stderr[-2000:], file=sys.stderr)
            return 1
        steps = json.loads(out.stdout.strip().splitlines()[-1])
        total = sum(steps.values())
        print(f"process {i + 1}: total {total:.2f} s  " + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
