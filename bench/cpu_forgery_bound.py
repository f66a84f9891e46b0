"""What a forger gains on a CPU host (docs/judging.md, "The trust boundary"; issue 14).

Judges, in one run and interleaved, an honest PyTorch file and the same file with a channel patch
that divides every time its process reports by f (f in FACTORS), on each problem given: each
forger is judged right after an honest judging, so the ratio of their scores compares two runs
under the same load. A forger gains when its score is below the honest one by more than the
honest runs' own spread; the judge's clock (parent/clock.py) is meant to leave it none.

    .venv/judge/bin/python bench/cpu_forgery_bound.py [--problems vector_add matmul] [--repeats 3] [--json OUT]

Prints a table per problem and factor: verdicts, the median ratio forged/honest score and its
range, and what the judge's clock added to the median call.
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


def judge_once(slug: str, source: str, seed: int) -> Any:
    from judge.harness import judge_job
    from judge.harness.parent.config import JudgeConfig
    from judge.protocol import JudgeJob

    job = JudgeJob("forgery-bound", 1, slug, "pytorch", source, mode="benchmark", seed=seed)
    return judge_job(job, config=CONFIG.setdefault("cpu", JudgeConfig.from_env(device="cpu")))


CONFIG: dict[str, Any] = {}


def run(slug: str, repeats: int) -> list[dict[str, Any]]:
    honest_source = (ROOT / "problems" / slug / "solutions" / "pytorch_ok.py").read_text(encoding="utf-8")
    rows = []
    for factor in FACTORS:
        forged_source = honest_source + PATCH.format(factor=factor)
        ratios, verdicts, added = [], [], []
        for i in range(repeats):
            honest = judge_once(slug, honest_source, i)
            forged = judge_once(slug, forged_source, i)
            verdicts.append(forged.verdict if forged.verdict != "rejected" else forged.message.split(":")[0])
            if honest.verdict == "accepted" and forged.verdict == "accepted" and honest.score_us:
                ratios.append(forged.score_us / honest.score_us)
                added += [t.judge_clock_added_us or 0.0 for t in forged.benchmarks]
        rows.append(
            {
                "problem": slug,
                "factor": factor,
                "verdicts": verdicts,
                "ratio_median": statistics.median(ratios) if ratios else None,
                "ratio_min": min(ratios) if ratios else None,
                "ratio_max": max(ratios) if ratios else None,
                "added_us_median": statistics.median(added) if added else None,
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="*", default=["vector_add", "matmul"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = [row for slug in args.problems for row in run(slug, args.repeats)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(
        "| problem | f | verdicts | forged / honest score: median (min-max) | judge's clock added to the median call |"
    )
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        ratio = (
            "-" if r["ratio_median"] is None else f"{r['ratio_median']:.2f} ({r['ratio_min']:.2f}-{r['ratio_max']:.2f})"
        )
        added = "-" if r["added_us_median"] is None else f"{r['added_us_median']:.1f} us"
        print(f"| {r['problem']} | {r['factor']:g} | {', '.join(r['verdicts'])} | {ratio} | {added} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
