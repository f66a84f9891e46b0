"""Why do honest kernels sometimes drain slowly? (docs/judging.md section 4, hidden-work rule)

On the H200 (2026-12-01) some judgings of the expert kernels had one shape where 30-100% of
the timed calls took 70-95 us to drain, which the hidden-work rule reads as work left on the
device. This judges a problem's expert Triton kernel several times in one warm worker (as
bench/precision.py --in-worker does) with the drain_detail switch (MethodSwitches), which makes the child
record, per timed call, the drain, a second synchronize right after it, the thread's context
switches and CPU time during the drain. Beside it a thread samples every process's CPU time
from /proc, so a slow shape can be matched with what else ran on the host.

    python3 bench/drain_probe.py --problem paged_attention --runs 4
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SLOW_US = 50.0
TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


def processes() -> dict[int, tuple[str, float]]:
    """pid -> (short command, CPU seconds so far) for every process."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            cmd = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        found[int(entry.name)] = (
            cmd[:80] or stat[stat.index("(") : stat.rindex(")") + 1],
            (int(fields[11]) + int(fields[12])) * TICK_S,
        )
    return found


class Sampler(threading.Thread):
    def __init__(self, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.every = every
        self.samples: list[tuple[float, dict[int, tuple[str, float]]]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((time.time(), processes()))
            time.sleep(self.every)

    def busy(self, t0: float, t1: float) -> list[tuple[float, int, str]]:
        """(CPU seconds, pid, command) of the processes that used CPU between t0 and t1."""
        inside = [s for s in self.samples if t0 - self.every <= s[0] <= t1 + self.every]
        if len(inside) < 2:
            return []
        first, last = inside[0][1], inside[-1][1]
        used = [(last[p][1] - first.get(p, (None, 0.0))[1], p, last[p][0]) for p in last]
        return sorted((u for u in used if u[0] > 0.05), reverse=True)[:6]


def summarize(detail: list[list[float]]) -> dict[str, Any]:
    slow = [d for d in detail if d[0] > SLOW_US]
    fast = [d for d in detail if d[0] <= SLOW_US]

    def med(rows: list[list[float]], i: int) -> float:
        return statistics.median(r[i] for r in rows) if rows else float("nan")

    return {
        "calls": len(detail),
        "slow": len(slow),
        "drain_slow_med": med(slow, 0),
        "again_slow_med": med(slow, 1),
        "drain_fast_med": med(fast, 0),
        "nivcsw_slow": sum(r[2] for r in slow),
        "nvcsw_slow": sum(r[3] for r in slow),
        "cpu_slow_med": med(slow, 4),
        "window": (detail[0][5], detail[-1][5]) if detail else (0.0, 0.0),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problem", action="append", required=True)
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()

    from judge.harness import judge_job
    from judge.harness.parent.config import JudgeConfig, MethodSwitches
    from judge.protocol import JudgeJob

    config = JudgeConfig(switches=MethodSwitches(drain_detail=True))
    sampler = Sampler()
    sampler.start()
    rows = []
    for slug in args.problem:
        source = (ROOT / "reference_kernels" / slug / "expert_triton.py").read_text()
        for run in range(args.runs):
            job = JudgeJob(f"drain-{slug}-{run}", 1, slug, "triton", source, mode="benchmark", seed=run)
            report = judge_job(job, config=config)
            print(f"{slug} run {run + 1}: {report.verdict} {report.message[:160]}", flush=True)
            for shape, attempts in (report.system.get("drain_detail") or {}).items():
                for a, detail in enumerate(attempts):
                    s = summarize(detail)
                    rows.append((slug, run + 1, shape, a + 1, s))
                    if s["slow"] >= 3:
                        print(f"  {shape} timing {a + 1}: {s['slow']} of {s['calls']} slow", flush=True)
                        for used, pid, cmd in sampler.busy(*s["window"]):
                            print(f"    {used:6.2f} s CPU  pid {pid}  {cmd}", flush=True)
    sampler.stop.set()
    print(
        "\n| problem | run | shape | timing | slow / calls | drain med slow / fast us | 2nd sync med (slow) us "
        "| involuntary / voluntary switches in slow drains | thread CPU med (slow) us |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for slug, run, shape, attempt, s in rows:
        print(
            f"| {slug} | {run} | {shape} | {attempt} | {s['slow']} / {s['calls']} | {s['drain_slow_med']:.1f} / "
            f"{s['drain_fast_med']:.1f} | {s['again_slow_med']:.1f} | {s['nivcsw_slow']} / {s['nvcsw_slow']} | "
            f"{s['cpu_slow_med']:.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
