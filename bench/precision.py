"""How repeatable is a score? The same accepted submission judged N times, each in its own process.

For every problem with reference_kernels/<slug>/expert_triton.py, runs

    python3 -m judge run --problem SLUG --language triton reference_kernels/SLUG/expert_triton.py \
        --mode benchmark --json

--runs times (default 10) as separate processes, one after the other, and reports the spread of
the score (max / min - 1; goal: within 1%) and of each shape's median. Results accumulate in
bench/results/precision.json (tracked, so the problems can be measured in several batches and
sessions) and the table of everything measured so far replaces the "Precision" section of
docs/benchmarks.md. A problem whose first judging is not accepted is not judged again: that is
a finding to read, not a spread to measure.

    python3 bench/precision.py                                  # all problems, 10 runs each
    python3 bench/precision.py --problems vector_add reduction  # a batch (each ~3-5 min on an H200)
    python3 bench/precision.py --print                          # only print the stored table

Timed assertions do not belong in tests; this is the measurement behind the claim in
docs/judging.md that a score repeats within about 1%.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge import spec as specmod  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "precision.json"
DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Precision"
# The generated table ends here; notes written below it (what a run showed) survive a rewrite.
TABLE_END = "<!-- end of bench/precision.py's table -->"


def judge_once(slug: str, path: Path, timeout: float) -> dict[str, Any]:
    began = time.monotonic()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge",
            "run",
            "--problem",
            slug,
            "--language",
            "triton",
            str(path),
            "--mode",
            "benchmark",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    try:
        report = json.loads(out.stdout)
    except ValueError:
        raise RuntimeError(f"{slug}: no JSON report (exit {out.returncode}): {out.stderr[-2000:]}") from None
    report["_wall_s"] = time.monotonic() - began
    return report


def judge_in_worker(config: Any, slug: str, path: Path, run: int) -> dict[str, Any]:
    """One judging by a warm worker in this process: the submission still runs in a fresh
    sandboxed child (from the warm pool), as in production; only the parent is shared."""
    from judge.harness import judge_job
    from judge.protocol import JudgeJob

    began = time.monotonic()
    job = JudgeJob(
        submission_id=f"precision-{slug}-{run}",
        attempt=1,
        problem=slug,
        language="triton",
        source=path.read_text(encoding="utf-8"),
        mode="benchmark",
        seed=run,
    )
    report = judge_job(job, config=config).to_dict()
    report["_wall_s"] = time.monotonic() - began
    return report


def spread(values: list[float]) -> float:
    return max(values) / min(values) - 1 if values and min(values) > 0 else float("nan")


def measure(
    slug: str, runs: int, timeout: float, worker: Any = None, on_run: Callable[[dict[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Judge `runs` times; `on_run` gets the result so far after every run, so a step cut by its
    time limit keeps the runs it finished (the table then says how many of the planned ran)."""
    path = specmod.REFERENCE_DIR / slug / "expert_triton.py"
    scores: list[float] = []
    shapes: dict[str, list[float]] = {}
    power: dict[str, list[dict[str, float]]] = {}
    set_medians: dict[str, list[list[float]]] = {}  # per shape, per run: report.system["gpu_during_timing"]
    verdicts: list[str] = []
    system: dict[str, Any] = {}
    walls: list[float] = []
    stopped: list[str] = []  # why the runs ended early, if they did
    retimed: list[str] = []  # shapes the judge timed twice (their first timing's drains were slow)

    def result() -> dict[str, Any]:
        return {
            "problem": slug,
            "runs": len(verdicts),
            "planned_runs": runs,
            "stopped": stopped[0] if stopped else None,
            "retimed": retimed,
            "accepted": verdicts.count("accepted"),
            "scores_us": scores,
            "shape_medians_us": shapes,
            "gpu_during_timing": power,
            "set_medians_us": set_medians,
            "gpu": system.get("gpu"),
            "driver": system.get("driver"),
            "sm_clock_mhz": system.get("sm_clock_mhz"),
            "mean_wall_s": statistics.fmean(walls) if walls else None,
            "how": "one warm worker, a fresh sandboxed child per judging"
            if worker is not None
            else "a process per judging",
            "measured_at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "host": platform.node() or "this host",
            "python": platform.python_version(),
        }

    for i in range(runs):
        report = judge_once(slug, path, timeout) if worker is None else judge_in_worker(worker, slug, path, i)
        verdicts.append(report["verdict"])
        walls.append(report["_wall_s"])
        if report["verdict"] != "accepted":
            print(f"  run {i + 1}: {report['verdict']}: {report['message'][:300]}", flush=True)
            if i == 0:  # a judge or kernel that fails outright would fail every run: keep the device time
                stopped.append("first judging not accepted")
                print(f"  {slug}: first judging not accepted, no more runs", flush=True)
            if on_run:
                on_run(result())
            if stopped:
                break
            continue
        system = report["system"]
        scores.append(report["score_us"])
        for b in report["benchmarks"]:
            if b.get("timing_attempts", 1) > 1:
                retimed.append(f"run {i + 1} {b['name']}: slow drains {' then '.join(map(str, b['slow_drains']))}")
            shapes.setdefault(b["name"], []).append(b["median_us"])
            # Within a run, per input set: if these spread as widely as the runs do, the data
            # (not the process or the GPU's state) moves the median.
            set_medians.setdefault(b["name"], []).append(b.get("set_medians_us") or [])
        during = system.get("gpu_during_timing") or {}
        for name, window in during.items():
            power.setdefault(name, []).append(window)
        capped = ", ".join(
            f"{name} {w['mean_power_w']:.0f} W, capped {w['power_capped_pct']:.0f}%" for name, w in during.items()
        )
        print(
            f"  run {i + 1}/{runs}: score {report['score_us']:.3f} us ({report['_wall_s']:.0f} s)"
            + (f"; {capped}" if capped else ""),
            flush=True,
        )
        if on_run:
            on_run(result())
    return result()


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        SECTION,
        "",
        "The same accepted submission (each problem's `reference_kernels/<slug>/expert_triton.py`) judged",
        "repeatedly in benchmark mode: either every run a separate `python3 -m judge run ... --json` process,",
        "or (`--in-worker`) one warm worker judging it again and again, each judging in its own fresh sandboxed",
        'child as in production (the "how" column). Fresh input pools every run. Spread = max / min - 1',
        'over the runs; goal: score spread within 1%. "Shapes timed twice": shapes whose first timing\'s',
        "drains looked like hidden work, so the judge timed them again (docs/judging.md section 4); each",
        "is listed in bench/results/precision.json. Produced by `bench/precision.py` (it replaces this section).",
        "",
        "| problem | GPU | runs accepted | score median (us) | score spread | widest shape spread | s per run | how | shapes timed twice |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for slug in sorted(results):
        r = results[slug]
        scores = r["scores_us"]
        if scores:
            shape_spreads = {name: spread(v) for name, v in r["shape_medians_us"].items()}
            worst = max(shape_spreads, key=lambda k: shape_spreads[k])
            cells = [
                f"{statistics.median(scores):.3f}",
                f"{spread(scores):.2%}" + (" (over 1%)" if spread(scores) > 0.01 else ""),
                f"{shape_spreads[worst]:.2%} ({worst})",
            ]
        else:
            cells = ["-", "-", "-"]
        wall = f"{r['mean_wall_s']:.0f}" if r.get("mean_wall_s") else "-"
        planned = r.get("planned_runs", r["runs"])
        cut = f" (cut: {r['runs']} of {planned} planned)" if r["runs"] < planned else ""
        if r.get("stopped"):
            cut = f" (stopped: {r['stopped']})"
        lines.append(
            f"| {slug} | {r.get('gpu') or '-'} | {r['accepted']}/{r['runs']}{cut} | "
            + " | ".join(cells)
            + f" | {wall} | {r.get('how', 'a process per judging')} | {len(r['retimed']) if 'retimed' in r else '- (judge before timing twice)'} |"
        )
    measured = sorted({r["measured_at"] for r in results.values()})
    # Where each result was measured (older results lack it: they were measured where this runs).
    hosts = sorted(
        {
            f"{r.get('host') or platform.node()} (Python {r.get('python') or platform.python_version()})"
            for r in results.values()
        }
    )
    lines += ["", f"Measured {', '.join(measured)} on {', '.join(hosts)}.", "", TABLE_END]
    return "\n".join(lines) + "\n"


def write_section(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    lines = doc.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION), None)
    if start is None:
        new = doc.rstrip("\n") + "\n\n" + text
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        marker = next((i for i in range(start + 1, end) if lines[i].rstrip() == TABLE_END), None)
        if marker is not None:  # keep the notes under the table
            new = "".join(lines[:start]) + text + "".join(lines[marker + 1 :])
        else:
            new = "".join(lines[:start]) + text + ("\n" if end < len(lines) else "") + "".join(lines[end:])
    DOC.write_text(new, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", nargs="*", help="default: every problem with an expert_triton.py")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=900, help="seconds per judging process")
    parser.add_argument("--print", action="store_true", help="only print (and write) the stored table")
    parser.add_argument(
        "--in-worker",
        action="store_true",
        help="judge in one warm worker (each judging still in its own fresh sandboxed child), as production does",
    )
    parser.add_argument("--no-write", action="store_true", help="do not touch docs/benchmarks.md")
    args = parser.parse_args()

    results: dict[str, dict[str, Any]] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    worker = None
    if args.in_worker and not args.print:
        from judge.harness.parent.config import JudgeConfig, parent_memory_from_env

        # The production timing policy (GRIDSTRIDE_PARENT_MEMORY chooses the memory); ceilings
        # and warm pool kept across judgings.
        worker = JudgeConfig(parent_memory=parent_memory_from_env())
    if not args.print:
        slugs = args.problems or sorted(
            p.name for p in specmod.REFERENCE_DIR.iterdir() if (p / "expert_triton.py").is_file()
        )
        # The parent-owned path (GRIDSTRIDE_PARENT_MEMORY=1) keeps rows of its own beside the default's.
        suffix = " (parent-owned memory)" if worker is not None and worker.parent_memory else ""
        for slug in slugs:
            print(f"{slug}{suffix}: {args.runs} runs", flush=True)

            def save(partial: dict[str, Any], key: str = slug + suffix) -> None:
                results[key] = partial
                RESULTS.parent.mkdir(parents=True, exist_ok=True)
                RESULTS.write_text(json.dumps(results, indent=1))
                if not args.no_write:
                    write_section(table(results))  # a step cut by its limit still leaves its runs here

            save(measure(slug, args.runs, args.timeout, worker, on_run=save))
    text = table(results)
    print(text)
    if not args.no_write and results:
        write_section(text)
    over = [s for s, r in results.items() if r["scores_us"] and spread(r["scores_us"]) > 0.01]
    short = [r for r in results.values() if r["accepted"] < r.get("planned_runs", r["runs"])]
    return 1 if over or short else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
