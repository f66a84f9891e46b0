"""Judge one file N times in separate processes and print each shape's median: where does the
score move between runs? (A diagnostic for the <1% repeatability goal; bench/precision.py is the
measurement that goes into docs.)

    python3 bench/repeat_probe.py vector_add triton reference_kernels/vector_add/expert_triton.py 4
"""

from __future__ import annotations

import json
import subprocess
import sys


def main() -> int:
    slug, language, path, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    rows = []
    for run in range(runs):
        cmd = [sys.executable, "-m", "judge", "run", "--problem", slug, "--language", language, path]
        out = subprocess.run([*cmd, "--mode", "benchmark", "--json"], capture_output=True, text=True)
        report = json.loads(out.stdout)
        shapes = {b["name"]: b for b in report["benchmarks"]}
        rows.append((run, report["verdict"], report["score_us"]))
        system = report["system"]
        clocks = [c.get("sm_clock_mhz") for c in system.get("clocks_after_timing", [])]
        print(run, report["verdict"], report["score_us"], "sm MHz after each shape:", clocks, flush=True)
        for name, b in shapes.items():
            ci = b["ci_high_us"] / b["median_us"] - 1
            print(
                f"    {name:>12}  median {b['median_us']:10.3f} us  n={b['n']:<5} ci +{ci:.3%}"
                f"  p10 {b['p10_us']:9.2f}  p90 {b['p90_us']:9.2f}  min {b['min_us']:9.2f}"
                f"  cover {b.get('launch_cover_us')}",
                flush=True,
            )
            sets = sorted(b.get("set_medians_us") or [])
            if sets:
                print(f"{'':18}per-set medians: min {sets[0]:.2f} mid {sets[len(sets) // 2]:.2f} max {sets[-1]:.2f}")
    scores = [r[2] for r in rows if r[2]]
    if scores:
        print(f"score spread max/min - 1 = {max(scores) / min(scores) - 1:.3%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
