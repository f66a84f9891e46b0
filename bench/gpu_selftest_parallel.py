"""The self-test corpus on a GPU host, several problems at once: verdicts, not scores.

    python3 bench/gpu_selftest_parallel.py --jobs 8 --limit 540 --out $OUT \
        --corpus flash_attention decode_gemm ... --starters vector_add softmax ...

Each unit is one `python3 -m judge selftest --quick` process: a problem's whole corpus (`--corpus`;
an entry judged "as fast as" an honest file stays in the honest file's process, so the two are
timed side by side), or only its four `*_starter_completed` files (`--starters`). Up to --jobs
units run at once, largest first; every judging keeps the sandbox and every rule, only the timing
statistics are short (`--quick`). Units share the GPU, so their scores are not figures to
report, and the time cap is looser than bench/gpu_suite.sh's (a judging waits for the others).
Units also share the GPU's memory: ten at once can run the H200 out of it, so a unit starts
only while --min-free-gib of the GPU is free (NVML); judge the heaviest problems (kv_cache_int8)
in a run of their own.

Entries whose verdict the parent reaches before any kernel runs (nvcc and Python compile errors,
source-scan rejections) are judged by CI on every commit and left out unless --full.

At --limit seconds every process still running is stopped; its unjudged entries are listed as
"not reached". Writes selftest_parallel.json (one row per entry) and prints a per-problem table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge import spec as specmod  # noqa: E402
from judge.harness import source_checks  # noqa: E402
from judge.selftest import corpus  # noqa: E402

OK_LINE = re.compile(r"^ok (\S+) -> (\w+)")
BAD_LINE = re.compile(r"^--- (\S+) (\S+): expected (\w+), got (\w+): ?(.*)")


@dataclass
class Unit:
    slug: str
    labels: list[str]
    expects: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    began: float = 0.0
    seconds: float = 0.0
    stopped: bool = False
    results: dict[str, tuple[str, bool, str]] = field(default_factory=dict)  # label -> (verdict, ok, message)


def decided_before_a_kernel(path: Path, sol: specmod.Solution, spec: specmod.ProblemSpec) -> bool:
    if sol.expect == "compile_error":
        return True
    return sol.expect == "rejected" and bool(
        source_checks.find_forbidden(path.read_text(), sol.language, spec.forbidden[sol.language])
    )


def plan(corpus_slugs: list[str], starter_slugs: list[str], full: bool, out: Path) -> list[Unit]:
    specs = {s.slug: s for s in specmod.load_all()[0]}
    unknown = sorted(set(corpus_slugs + starter_slugs) - set(specs))
    if unknown:
        raise SystemExit(f"unknown problems: {', '.join(unknown)}")
    units = []
    for slug in dict.fromkeys(corpus_slugs + starter_slugs):
        spec = specs[slug]
        whole = slug in corpus_slugs
        entries = [
            (label, sol)
            for label, path, sol in corpus(spec)
            if (whole or "_starter_completed" in label) and (full or not decided_before_a_kernel(path, sol, spec))
        ]
        if entries:
            kind = "corpus" if whole else "starters"
            units.append(
                Unit(
                    slug=slug,
                    labels=[label for label, _ in entries],
                    expects={label: sol.expect for label, sol in entries},
                    log=out / f"selftest_{slug}_{kind}.log",
                )
            )
    return sorted(units, key=lambda u: -len(u.labels))


def start(unit: Unit, time_cap: float) -> None:
    only = [arg for label in unit.labels for arg in ("--only", label)]
    command = [sys.executable, "-m", "judge", "selftest", "--quick", "--time-cap", str(time_cap), *only, unit.slug]
    # One warm process per unit: the units themselves keep the GPU host busy.
    env = {**os.environ, "GRIDSTRIDE_WARM_POOL_MAX": "1", "PYTHONUNBUFFERED": "1"}
    unit.began = time.monotonic()
    with unit.log.open("wb") as log:
        unit.process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)


def read_results(unit: Unit) -> None:
    for line in unit.log.read_text(errors="replace").splitlines():
        if ok := OK_LINE.match(line):
            unit.results[ok.group(1)] = (ok.group(2), True, "")
        elif bad := BAD_LINE.match(line):
            unit.results[bad.group(2)] = (bad.group(4), False, bad.group(5)[:300])
        elif "skipped (" in line:  # the closing table's row of an entry this host does not run
            label = next((label for label in unit.labels if label in line), None)
            if label:
                unit.results[label] = ("skipped", True, line.split("skipped (", 1)[1].rstrip(" |-)"))


# Seconds between two starts: a unit takes its GPU memory as it goes, so free memory is read
# only once the last one has had time to take some.
START_SPACING_SECONDS = 5.0


def gpu_free_bytes() -> int | None:
    from judge.harness.parent import nvml

    return nvml.free_memory(0)


def room_for_another(running: list[Unit], min_free: int, last_start: float) -> bool:
    """A unit starts only while the GPU has min_free bytes free, judged a few seconds after the
    last start (a unit takes its memory as it goes); with nothing running one always starts."""
    if not running:
        return True
    if time.monotonic() - last_start < START_SPACING_SECONDS:
        return False
    free = gpu_free_bytes()
    return free is None or free >= min_free


def run(units: list[Unit], jobs: int, limit: float, time_cap: float, min_free: int) -> None:
    deadline = time.monotonic() + limit
    waiting, running = list(units), []
    last_start = 0.0
    while (waiting or running) and time.monotonic() < deadline:
        while waiting and len(running) < jobs and room_for_another(running, min_free, last_start):
            last_start = time.monotonic()
            unit = waiting.pop(0)
            start(unit, time_cap)
            running.append(unit)
            print(f"started {unit.slug} ({len(unit.labels)} entries)", flush=True)
        for unit in list(running):
            assert unit.process is not None
            if unit.process.poll() is not None:
                unit.seconds = time.monotonic() - unit.began
                running.remove(unit)
                read_results(unit)
                bad = sum(not ok for _, ok, _ in unit.results.values())
                print(
                    f"done {unit.slug}: {len(unit.results)}/{len(unit.labels)} judged, {bad} unexpected, "
                    f"{unit.seconds:.0f} s",
                    flush=True,
                )
        time.sleep(0.5)
    for unit in running:
        assert unit.process is not None
        unit.process.kill()
        unit.process.wait()
        unit.stopped = True
        unit.seconds = time.monotonic() - unit.began
        read_results(unit)


def report(units: list[Unit], out: Path, wall: float) -> int:
    rows, lines, surprises = [], [], 0
    header = f"{'problem':26} {'unit':9} {'entries':>7} {'ok':>4} {'unexpected':>10} {'not reached':>11} {'s':>5}"
    lines.append(header)
    notes = []
    for unit in units:
        good = sum(ok for _, ok, _ in unit.results.values())
        bad = len(unit.results) - good
        missing = [label for label in unit.labels if label not in unit.results]
        kind = "corpus" if "starters" not in unit.log.name else "starters"
        surprises += bad
        lines.append(
            f"{unit.slug:26} {kind:9} {len(unit.labels):>7} {good:>4} {bad:>10} {len(missing):>11} {unit.seconds:>5.0f}"
        )
        for label in unit.labels:
            verdict, ok, message = unit.results.get(label, ("-", False, "not reached"))
            reached = label in unit.results
            rows.append(
                {
                    "slug": unit.slug,
                    "label": label,
                    "expect": unit.expects[label],
                    "got": verdict,
                    "ok": ok,
                    "reached": reached,
                    "message": message,
                }
            )
            if reached and not ok:
                notes.append(
                    f"UNEXPECTED {unit.slug} {label}: expected {unit.expects[label]}, got {verdict}: {message}"
                )
            elif not reached:
                notes.append(f"not reached {unit.slug} {label}" + (" (stopped at the limit)" if unit.stopped else ""))
    judged = sum(r["reached"] for r in rows)
    lines.append(f"{judged}/{len(rows)} judged, {surprises} unexpected, wall {wall:.0f} s")
    (out / "selftest_parallel.json").write_text(json.dumps(rows, indent=1))
    text = "\n".join(lines + notes)
    (out / "selftest_parallel.txt").write_text(text + "\n")
    print(text)
    return 1 if surprises or judged < len(rows) else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="*", default=[], help="problems whose whole corpus is judged")
    parser.add_argument("--starters", nargs="*", default=[], help="problems whose starter completions are judged")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--limit", type=float, default=540.0, help="seconds for the whole run")
    parser.add_argument("--time-cap", type=float, default=45.0, help="cap on every judging's time limits")
    parser.add_argument("--full", action="store_true", help="also the entries decided before a kernel runs")
    parser.add_argument(
        "--min-free-gib", type=float, default=40.0, help="start another unit only while this much GPU memory is free"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "selftest_parallel")
    parser.add_argument("--dry-run", action="store_true", help="print the units and stop")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    units = plan(args.corpus, args.starters, args.full, args.out)
    print(f"{len(units)} units, {sum(len(u.labels) for u in units)} entries, {args.jobs} at a time", flush=True)
    if args.dry_run:
        for unit in units:
            print(unit.slug, unit.log.name, *unit.labels)
        return 0
    began = time.monotonic()
    # The machine ceilings first, alone: measured beside the units' kernels they come out low
    # and raise every floor; the units then read them from the CLI's cache
    # (judge/harness/parent/ceilings.py, measure_or_load).
    subprocess.run([sys.executable, "-m", "judge", "ceilings", "--fresh"], cwd=ROOT, check=False)
    run(units, args.jobs, args.limit, args.time_cap, int(args.min_free_gib * 2**30))
    return report(units, args.out, time.monotonic() - began)


if __name__ == "__main__":
    raise SystemExit(main())
