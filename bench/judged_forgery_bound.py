"""What a forger gains, judged end to end (docs/judging.md, "The trust boundary"; issue 14).

Judges, in one run and interleaved, an honest file (PyTorch's pytorch_ok.py on a CPU host; on a
GPU the problem's expert Triton kernel, whose time is its own kernels') and the same file with a channel patch
that divides every time its process reports by f (f in FACTORS), on each problem given: each
forger is judged right after an honest judging, so the ratio of their scores compares two runs
under the same load. A forger gains when its score is below the honest one by more than the
honest runs' own spread; the judge's clock (parent/clock.py) is meant to leave it none.

    .venv/judge/bin/python bench/judged_forgery_bound.py [--problems vector_add matmul] [--repeats 3]
        [--device cpu|cuda] [--factors 1.01 2 1000] [--json OUT]

Prints a table per problem, factor and benchmark shape: verdicts, the median ratio forged/honest
of the shape's median and its range, and what the judge's clock added to the median call.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FACTORS = (1.01, 1.02, 1.05, 1.1, 2.0, 1000.0)

# Every time field the child sends is divided by FACTOR: per call, per batch and per shape.
PATCH = """
import dataclasses
import gc

FACTOR = {factor!r}


def _scaled(frame):
    changes = {{}}
    for key in ("times_us", "warmup_us"):
        if isinstance(getattr(frame, key, None), list):
            changes[key] = [v / FACTOR for v in getattr(frame, key)]
    us = getattr(frame, "us", None)
    if isinstance(us, (int, float)):
        changes["us"] = us / FACTOR
    elif isinstance(us, list):
        changes["us"] = [v / FACTOR for v in us]
    return dataclasses.replace(frame, **changes) if changes else frame


for _obj in gc.get_objects():
    if type(_obj).__name__ == "Runner":
        _real = _obj.channel.send
        _obj.channel.send = lambda frame, blob=None, _real=_real: _real(
            _scaled(frame) if dataclasses.is_dataclass(frame) else frame, blob
        )
        break
"""


def judge_once(slug: str, language: str, source: str, seed: int, device: str) -> Any:
    from judge.harness import judge_job
    from judge.harness.parent.config import JudgeConfig
    from judge.protocol import JudgeJob

    job = JudgeJob("forgery-bound", 1, slug, language, source, mode="benchmark", seed=seed)
    return judge_job(job, config=CONFIG.setdefault(device, JudgeConfig.from_env(device=device)))


CONFIG: dict[str, Any] = {}


def honest_file(slug: str, device: str) -> tuple[str, str]:
    if device == "cuda":
        return "triton", (ROOT / "reference_kernels" / slug / "expert_triton.py").read_text(encoding="utf-8")
    return "pytorch", (ROOT / "problems" / slug / "solutions" / "pytorch_ok.py").read_text(encoding="utf-8")


def run(slug: str, repeats: int, device: str, factors: list[float]) -> list[dict[str, Any]]:
    language, honest_source = honest_file(slug, device)
    rows = []
    for factor in factors:
        forged_source = honest_source + PATCH.format(factor=factor)
        verdicts: list[str] = []
        ratios: dict[str, list[float]] = {}
        added: dict[str, list[float]] = {}
        honest_us: dict[str, list[float]] = {}
        for i in range(repeats):
            honest = judge_once(slug, language, honest_source, i, device)
            forged = judge_once(slug, language, forged_source, i, device)
            verdicts.append(forged.verdict if forged.verdict != "rejected" else forged.message.split(":")[0])
            if honest.verdict == "accepted" and forged.verdict == "accepted":
                for fair, cheat in zip(honest.benchmarks, forged.benchmarks, strict=True):
                    ratios.setdefault(fair.name, []).append(cheat.median_us / fair.median_us)
                    added.setdefault(fair.name, []).append(cheat.judge_clock_added_us or 0.0)
                    honest_us.setdefault(fair.name, []).append(fair.median_us)
        for shape in ratios or {"-": []}:
            got = ratios.get(shape, [])
            rows.append(
                {
                    "problem": slug,
                    "shape": shape,
                    "factor": factor,
                    "verdicts": verdicts,
                    "honest_us": statistics.median(honest_us[shape]) if got else None,
                    "ratio_median": statistics.median(got) if got else None,
                    "ratio_min": min(got) if got else None,
                    "ratio_max": max(got) if got else None,
                    "added_us_median": statistics.median(added[shape]) if got else None,
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="*", default=["vector_add", "matmul"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--factors", nargs="*", type=float, default=list(FACTORS))
    args = parser.parse_args()
    rows = [row for slug in args.problems for row in run(slug, args.repeats, args.device, args.factors)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(
        "| problem | shape | honest median | f | verdicts | forged / honest median: median (min-max) "
        "| judge's clock added to the median call |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        ratio = (
            "-" if r["ratio_median"] is None else f"{r['ratio_median']:.2f} ({r['ratio_min']:.2f}-{r['ratio_max']:.2f})"
        )
        added = "-" if r["added_us_median"] is None else f"{r['added_us_median']:.1f} us"
        fair = "-" if r["honest_us"] is None else f"{r['honest_us']:.1f} us"
        verdicts = ", ".join(r["verdicts"])
        print(f"| {r['problem']} | {r['shape']} | {fair} | {r['factor']:g} | {verdicts} | {ratio} | {added} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
