"""Why does a streaming kernel's median move between processes? A diagnostic, outside the judge.

Each child process allocates a pool of 16 input sets (a, b, c) for torch.add at 16M and 64M
floats, twice (round 0, then freed and allocated again: round 1), and times every set 25 times in
shuffled order with an L2 flush before each call, once with a write flush (zero_ of 2x L2, what
the judge does) and once with a read flush (a sum over the same buffer). It prints, per round and
shape, the spread of the per-set medians and the pooled median, so one can tell a per-process
state (every set slow) from a per-allocation one (some sets slow), and whether the allocator mode
(PyTorch's default vs expandable_segments) or the flush kind changes it. Full data as JSON under
$OUT (or var/bench).

    python3 bench/placement_probe.py 8      # 8 processes, allocator modes alternating
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

SIZES = (16 << 20, 64 << 20)
SETS = 16
REPS = 25


def child() -> dict:
    import torch

    props = torch.cuda.get_device_properties(0)
    flush = torch.empty(2 * props.L2_cache_size, dtype=torch.uint8, device="cuda")
    flush_words = flush.view(torch.int32)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    rng = random.Random(os.getpid())
    out: dict = {"rounds": []}
    for rnd in range(2):
        for n in SIZES:
            sets = [
                (torch.rand(n, device="cuda") + 1, torch.rand(n, device="cuda") + 1, torch.empty(n, device="cuda"))
                for _ in range(SETS)
            ]
            torch.cuda.synchronize()
            for flush_kind in ("write", "read"):
                times: list[list[float]] = [[] for _ in range(SETS)]
                for _ in range(REPS):
                    order = list(range(SETS))
                    rng.shuffle(order)
                    for i in order:
                        a, b, c = sets[i]
                        if flush_kind == "write":
                            flush.zero_()
                        else:
                            flush_words.sum()
                        start.record()
                        torch.add(a, b, out=c)
                        end.record()
                        end.synchronize()
                        times[i].append(start.elapsed_time(end) * 1000)
                medians = [statistics.median(t) for t in times]
                out["rounds"].append(
                    {
                        "round": rnd,
                        "n": n,
                        "flush": flush_kind,
                        "set_medians": medians,
                        "pooled": statistics.median([x for t in times for x in t]),
                        "ptrs": [[t.data_ptr() for t in s] for s in sets],
                    }
                )
            del sets
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
    return out


def clocks() -> str:
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"nvidia-smi: {exc}"


def main() -> int:
    if sys.argv[1:] == ["--child"]:
        print(json.dumps(child()))
        return 0
    procs = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    results = []
    for p in range(procs):
        mode = "default" if p % 2 == 0 else "expandable_segments:True"
        env = dict(os.environ)
        if mode != "default":
            env["PYTORCH_CUDA_ALLOC_CONF"] = mode
        began = time.monotonic()
        before = clocks()
        run = subprocess.run([sys.executable, __file__, "--child"], capture_output=True, text=True, env=env)
        if run.returncode != 0:
            print(run.stderr[-2000:])
            return 1
        data = json.loads(run.stdout)
        data.update(process=p, alloc=mode, clocks_before=before, clocks_after=clocks())
        results.append(data)
        print(f"process {p} alloc={mode} ({time.monotonic() - began:.1f} s) clocks {before}")
        for r in data["rounds"]:
            m = sorted(r["set_medians"])
            print(
                f"  round {r['round']} {r['n'] >> 20:>3}M flush={r['flush']:<5} pooled {r['pooled']:8.2f} us"
                f"  set medians min {m[0]:8.2f} med {m[len(m) // 2]:8.2f} max {m[-1]:8.2f}"
            )
    dest = Path(os.environ.get("OUT") or Path(__file__).resolve().parent.parent / "var" / "bench")
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "placement_probe.json").write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
