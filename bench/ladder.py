"""Judge every rung of every optimization ladder with the judge itself and write the figures.

For each problem with problems/<slug>/ladder/ladder.toml, every rung's source is judged through
judge_job in benchmark mode (what `python -m judge run --mode benchmark` does), and the report's
figures are kept: verdict, score (geometric mean of the shapes' median times), % of speed of
light, speedup over the PyTorch baseline, per-shape medians, and the profiler's top kernels
(with --profile, ncu's DRAM and compute % of peak and occupancy per kernel).
They are written to problems/<slug>/ladder/figures.json and to the generated table of
docs/ladders.md (between its markers). Nothing here is typed in: the figures are a GPU run's.

    python3 bench/ladder.py                       # every ladder, on the GPU host
    python3 bench/ladder.py transpose sgemm       # some problems
    python3 bench/ladder.py --quick --json $OUT/ladders.json   # shorter timing, a JSON copy
    python3 bench/ladder.py --from-json a.json b.json  # write GPU runs' figures here (no judging)

On a host without a GPU the rungs are judged in the CPU interpreter (Triton, PyTorch) and only
printed: CPU figures are not written into the problem files.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge import ladder as laddermod  # noqa: E402
from judge.protocol import JudgeJob, Report  # noqa: E402

DOC = ROOT / "docs" / "ladders.md"
BEGIN, END = "<!-- ladders:begin -->", "<!-- ladders:end -->"
TOP_KERNELS = 3


def rung_figures(report: Report) -> dict[str, Any]:
    """What a rung's judging is remembered by (numbers in us, %, x)."""
    shapes = [
        {
            "name": s.name,
            "median_us": s.median_us,
            "sol_pct": s.sol_pct,
            "gbps": s.gbps,
            "tflops": s.tflops,
            "speedup_vs_reference": s.speedup_vs_reference,
        }
        for s in report.benchmarks
    ]
    speedups = [s["speedup_vs_reference"] for s in shapes if s["speedup_vs_reference"]]
    return {
        "verdict": report.verdict,
        "message": report.message if report.verdict != "accepted" else "",
        "score_us": report.score_us,
        "sol_pct": report.sol_pct,
        "speedup_vs_reference": math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else None,
        "shapes": shapes,
        "kernels": [asdict(k) for k in report.kernels[:TOP_KERNELS]],
    }


def judge_ladder(ladder: laddermod.Ladder, config: Any, mode: str) -> dict[str, Any]:
    from judge.harness import judge_job

    rungs = []
    for index, rung in enumerate(ladder.rungs, start=1):
        job = JudgeJob(
            submission_id=f"ladder-{ladder.slug}-{index}",
            attempt=1,
            problem=ladder.slug,
            language=rung.language,
            source=rung.source(),
            mode=mode,
            seed=0,
        )
        began = time.monotonic()
        report = judge_job(job, config=config)
        figures = {"rung": index, "title": rung.title, "path": rung.path, "language": rung.language}
        figures.update(rung_figures(report))
        rungs.append(figures)
        score = f"{report.score_us:.1f} us" if report.score_us else "-"
        sol = f"{report.sol_pct:.1f}% SOL" if report.sol_pct else ""
        print(
            f"{ladder.slug} rung {index} ({rung.title}): {report.verdict} {score} {sol} ({time.monotonic() - began:.0f} s)",
            flush=True,
        )
    system = {}
    if rungs:
        system = {k: report.system.get(k) for k in ("gpu", "driver", "torch", "triton", "cupy") if k in report.system}
    return {"slug": ladder.slug, "mode": mode, "system": system, "ceilings": report.ceilings, "rungs": rungs}


def _cell(value: float | None, unit: str, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}g}{unit}"


def render_table(all_figures: list[dict[str, Any]]) -> str:
    """The generated docs table: one row per rung of every ladder judged."""
    lines = [
        "| problem | rung | language | verdict | score | % of speed of light | speedup over PyTorch | top kernel |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for fig in all_figures:
        for rung in fig["rungs"]:
            top = rung["kernels"][0]["name"][:60] if rung["kernels"] else "-"
            lines.append(
                f"| {fig['slug']} | {rung['rung']}. {rung['title']} | {rung['language']} | {rung['verdict']} | "
                f"{_cell(rung['score_us'], ' us')} | {_cell(rung['sol_pct'], '%')} | "
                f"{_cell(rung['speedup_vs_reference'], 'x')} | `{top}` |"
            )
    return "\n".join(lines) + "\n"


def write_doc(table: str, header: str, path: Path = DOC) -> None:
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    body = f"{BEGIN}\n{header}\n\n{table}{END}"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        path.write_text(head + body + rest.split(END, 1)[1], encoding="utf-8")
    else:
        path.write_text(text + ("\n" if text else "") + body + "\n", encoding="utf-8")


def write_figures(results: list[dict[str, Any]], quick: bool) -> None:
    """Each problem's figures.json and the table of docs/ladders.md, from one GPU run."""
    for fig in results:
        path = laddermod.ladder_dir(fig["slug"]) / laddermod.FIGURES_FILE
        path.write_text(json.dumps(fig, indent=1) + "\n", encoding="utf-8")
    gpu = (results[0]["system"].get("gpu") if results else None) or "a GPU"
    date = results[0].get("date", "") if results else ""
    timing = " --quick" if quick else ""
    header = f"Generated by `python3 bench/ladder.py{timing}` on {gpu} ({date}); do not edit by hand."
    write_doc(render_table(results), header, DOC)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--quick", action="store_true", help="short timing (the selftest's --quick policy)")
    parser.add_argument("--json", type=Path, help="also write all figures to this file")
    parser.add_argument("--profile", action="store_true", help="profile mode: adds ncu's figures per kernel (slower)")
    parser.add_argument(
        "--from-json", type=Path, nargs="+", help="write the figures of earlier GPU runs' --json files (merged)"
    )
    args = parser.parse_args(argv)
    if args.from_json:
        # Several calls' files merge into one table, in the order the ladders were judged; a
        # ladder judged again in a later file takes the earlier one's place.
        merged = {fig["slug"]: fig for path in args.from_json for fig in json.loads(path.read_text(encoding="utf-8"))}
        results = list(merged.values())
        write_figures(results, quick=any(fig.get("quick") for fig in results))
        print(render_table(results))
        return 0

    from judge.cli import cli_config

    ladders, errors = laddermod.load_all_ladders()
    for error in errors:
        print(f"error {error}", file=sys.stderr)
    chosen = [lad for lad in ladders if not args.slugs or lad.slug in args.slugs]
    config = cli_config()
    if args.quick:
        from judge.harness.child.timing import TimingPolicy

        config.policy = TimingPolicy(
            warmup_min=2, warmup_max=8, warmup_seconds=5, min_reps=10, max_reps=400, max_seconds=0.5, ci_target_rel=0.01
        )
        config.pool_sets = 4
    on_gpu = config.device == "cuda"
    mode = ("profile" if args.profile else "benchmark") if on_gpu else "test"
    results = []
    for lad in chosen:
        results.append(judge_ladder(lad, config, mode) | {"quick": args.quick, "date": time.strftime("%Y-%m-%d")})
        if args.json:  # after every ladder: a run stopped at its time limit keeps the ladders it finished
            args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(render_table(results))
    if on_gpu:
        write_figures(results, quick=args.quick)
    bad = [r for fig in results for r in fig["rungs"] if r["verdict"] != "accepted"]
    return 1 if errors or bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
