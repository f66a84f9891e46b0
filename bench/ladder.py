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
    python3 bench/ladder.py --quick --resume var/ladder_runs slug ...  # a GPU session's calls:
                                                  # each skips the rungs earlier calls judged
    python3 bench/ladder.py --from-json a.json b.json  # write GPU runs' figures here (no judging)
    python3 bench/ladder.py --timelines               # where the judgings' time went (figures.json)

--from-json writes every ladder whose rungs were all judged in the files given (by one call or
several), and keeps every other ladder's figures.json as it is, so the table always covers them all.

On a host without a GPU the rungs are judged in the CPU interpreter (Triton, PyTorch) and only
printed: CPU figures are not written into the problem files.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
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
            "floor_us": s.floor_us,
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


def judge_ladder(
    ladder: laddermod.Ladder,
    config: Any,
    mode: str,
    done: dict[tuple[str, int, str], dict[str, Any]],
    on_rung: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """Judge the ladder's rungs; a rung in `done` (an earlier call's figures for the same slug,
    rung number and path) is taken from there, not judged again. `on_rung` sees the ladder so
    far after every rung, so a run cut at its time limit keeps every rung it finished."""
    from judge.harness import judge_job

    fig: dict[str, Any] = {"slug": ladder.slug, "mode": mode, "system": {}, "ceilings": {}, "rungs": []}
    for index, rung in enumerate(ladder.rungs, start=1):
        earlier = done.get((ladder.slug, index, rung.path))
        if earlier is not None:
            fig["rungs"].append(earlier["rung"])
            fig["system"], fig["ceilings"] = fig["system"] or earlier["system"], fig["ceilings"] or earlier["ceilings"]
            print(f"{ladder.slug} rung {index} ({rung.title}): from an earlier run", flush=True)
            continue
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
        # Where the judging's time went (not shown on the site; for planning GPU calls).
        figures["judged_s"] = round(time.monotonic() - began, 1)
        figures["timeline_s"] = report.system.get("timeline_s", [])
        fig["rungs"].append(figures)
        fig["system"] = {
            k: report.system.get(k) for k in ("gpu", "driver", "torch", "triton", "cupy") if k in report.system
        }
        fig["ceilings"] = report.ceilings
        on_rung(fig)
        score = f"{report.score_us:.1f} us" if report.score_us else "-"
        sol = f"{report.sol_pct:.1f}% SOL" if report.sol_pct else ""
        print(
            f"{ladder.slug} rung {index} ({rung.title}): {report.verdict} {score} {sol} ({figures['judged_s']:.0f} s)",
            flush=True,
        )
    return fig


def _figures_in(path: Path) -> list[dict[str, Any]]:
    """A --json file's ladders, or a figures.json's one."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, list) else [data]


def figures_path(slug: str) -> Path:
    return laddermod.ladder_dir(slug) / laddermod.FIGURES_FILE


def earlier_rungs(paths: list[Path]) -> dict[tuple[str, int, str], dict[str, Any]]:
    """Every rung of earlier runs' --json files by (slug, rung number, path), a later file's
    rung replacing an earlier one's, with its ladder's system and ceilings."""
    done: dict[tuple[str, int, str], dict[str, Any]] = {}
    for path in paths:
        for fig in json.loads(path.read_text(encoding="utf-8")):
            for rung in fig["rungs"]:
                done[(fig["slug"], rung["rung"], rung["path"])] = {
                    "rung": rung, "system": fig.get("system", {}), "ceilings": fig.get("ceilings", {}),
                    "date": fig.get("date", ""), "quick": fig.get("quick", False), "mode": fig.get("mode", ""),
                }  # fmt: skip
    return done


def merged_figures(paths: list[Path]) -> tuple[list[dict[str, Any]], list[str]]:
    """The ladders to write from earlier runs' --json files: each ladder whose every rung was
    judged in one of them (rungs may come from different calls of one GPU session), plus the
    figures.json of every other ladder in the repository as it stands. Returns the ladders and
    the ones left out because some rung was never judged."""
    done = earlier_rungs(paths)
    ladders, _ = laddermod.load_all_ladders()
    results, incomplete = [], []
    for lad in ladders:
        found = [done.get((lad.slug, i, r.path)) for i, r in enumerate(lad.rungs, start=1)]
        if all(found):
            last = found[-1]
            results.append({
                "slug": lad.slug, "mode": last["mode"], "system": last["system"], "ceilings": last["ceilings"],
                "rungs": [f["rung"] for f in found], "quick": last["quick"], "date": last["date"],
            })  # fmt: skip
            continue
        if any(found):
            incomplete.append(lad.slug)
        kept = figures_path(lad.slug)
        if kept.is_file():
            results.append(json.loads(kept.read_text(encoding="utf-8")))
    return results, incomplete


def where_time_went(all_figures: list[dict[str, Any]]) -> str:
    """What the rungs' timelines say of a back-to-back GPU run: each judging's seconds, the wait
    for its child's start-up ("child started" to "child ready") and its tests ("child ready" to
    the first shape's input pool), and how much of the start-up the tests could overlap."""
    judged, waits, tests = [], [], []
    for fig in all_figures:
        for rung in fig["rungs"]:
            timeline = rung.get("timeline_s") or []
            marks = dict(timeline)
            pools = [t for event, t in timeline if event.endswith("input pool made")]
            if "judged_s" not in rung or "child started" not in marks or "child ready" not in marks or not pools:
                continue
            judged.append(rung["judged_s"])
            waits.append(marks["child ready"] - marks["child started"])
            tests.append(pools[0] - marks["child ready"])
    if not judged:
        return "no rung with a timeline"
    overlap = sum(min(w, t) for w, t in zip(waits, tests, strict=True))
    return "\n".join([
        f"{len(judged)} judgings, {sum(judged):.0f} s, median {statistics.median(judged):.1f} s "
        f"({min(judged):.1f}-{max(judged):.1f} s)",
        f"waiting for the child's start-up: median {statistics.median(waits):.2f} s, {sum(waits):.0f} s in all",
        f"tests: median {statistics.median(tests):.2f} s, {sum(tests):.0f} s in all; "
        f"start-up they could overlap: {overlap:.0f} s",
    ])  # fmt: skip


def _cell(value: float | None, unit: str, digits: int = 3) -> str:
    """`digits` significant digits, whole numbers from 1000 up (49107 us, not 4.91e+04 us)."""
    if value is None:
        return "-"
    return f"{value:.0f}{unit}" if abs(value) >= 10**digits else f"{value:.{digits}g}{unit}"


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
        path = figures_path(fig["slug"])
        path.write_text(json.dumps(fig, indent=1) + "\n", encoding="utf-8")
    gpu = (results[0]["system"].get("gpu") if results else None) or "a GPU"
    date = ", ".join(sorted({fig.get("date", "") for fig in results} - {""}))
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
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="rungs in DIR's *.json (earlier calls') are not judged again; this call's JSON goes there too",
    )
    parser.add_argument(
        "--timelines",
        type=Path,
        nargs="*",
        help="where the judgings' time went, from these --json files (default: every figures.json)",
    )
    args = parser.parse_args(argv)
    if args.timelines is not None:
        kept = [figures_path(lad.slug) for lad in laddermod.load_all_ladders()[0]]
        paths = args.timelines or [path for path in kept if path.is_file()]
        figs = [fig for path in paths for fig in _figures_in(path)]
        print(where_time_went(figs))
        return 0
    if args.from_json:
        results, incomplete = merged_figures(args.from_json)
        for slug in incomplete:
            print(f"{slug}: some rungs were never judged; its figures stay as they were", file=sys.stderr)
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
    done: dict[tuple[str, int, str], dict[str, Any]] = {}
    if args.resume:
        args.resume.mkdir(parents=True, exist_ok=True)
        done = earlier_rungs(sorted(args.resume.glob("*.json")))
        args.json = args.json or args.resume / f"ladders-{time.strftime('%Y%m%dT%H%M%S')}.json"
    stamp = {"quick": args.quick, "date": time.strftime("%Y-%m-%d")}
    results: list[dict[str, Any]] = []

    def save(partial: dict[str, Any]) -> None:
        if args.json:  # after every rung: a run stopped at its time limit keeps what it finished
            args.json.write_text(json.dumps([*results, partial | stamp], indent=1), encoding="utf-8")

    for lad in chosen:
        results.append(judge_ladder(lad, config, mode, done, save) | stamp)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(render_table(results))
    if on_gpu:
        write_figures(results, quick=args.quick)
    bad = [r for fig in results for r in fig["rungs"] if r["verdict"] != "accepted"]
    return 1 if errors or bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
