"""Seed the ladder check's site (run through `manage.py shell`): figures for the real sgemm
ladder in bench/ladder.py's format (made-up times, made by its own rung_figures: no GPU run
here), a user with an accepted H200 run between two rungs, and a user who has not solved it."""

from __future__ import annotations

import sys
from pathlib import Path

# Run by `manage.py shell -c` from the repository root (no __file__ there).
sys.path.insert(0, str(Path.cwd() / "tests" / "web"))

from gridstride.catalog.models import Ladder
from site_fixtures import H200_CEILINGS, geomean, make_submission, make_user, problems, report, shape

from bench.ladder import rung_figures
from judge.protocol import KernelDigest, Report

SHAPES = {"4096^3": (4096, 4096, 4096), "8192x8192x1024": (8192, 8192, 1024), "3000x5000x2000": (3000, 5000, 2000)}
# The 4096^3 time of each rung (µs); the other shapes scale with their FLOPs.
RUNG_TIMES = [41_000.0, 12_000.0, 5_200.0, 2_900.0]
YOURS = 7_000.0


def shapes(time_4096: float) -> list:
    out = []
    for name, (m, n, k) in SHAPES.items():
        flops = 2.0 * m * n * k
        out.append(
            shape(
                name,
                {"m": m, "n": n, "k": k},
                time_4096 * flops / (2.0 * 4096**3),
                flops=flops,
                nbytes=4.0 * (m * k + k * n + m * n),
            )
        )
    return out


def main() -> None:
    sgemm = problems()["sgemm"]
    ladder = Ladder.objects.get(problem=sgemm)
    for rung, time_4096 in zip(ladder.rungs.all(), RUNG_TIMES, strict=True):
        timings = shapes(time_4096)
        run = Report(
            submission_id=f"ladder-sgemm-{rung.position}",
            attempt=1,
            problem="sgemm",
            language=rung.language,
            mode="profile",
            verdict="accepted",
            benchmarks=timings,
            score_us=geomean([t.median_us for t in timings]),
            sol_pct=timings[0].sol_pct,
            kernels=[
                KernelDigest(
                    name=f"sgemm_rung_{rung.position}_kernel(float const*, float const*, float*, int, int, int)",
                    duration_us=time_4096,
                    dram_sol_pct=30.0 - 5 * rung.position,
                    compute_sol_pct=10.0 + 20 * rung.position,
                    achieved_occupancy_pct=60.0,
                    registers=32 + 16 * rung.position,
                )
            ],
        )
        rung.figures = {"rung": rung.position, "title": rung.title, "path": rung.path, "language": rung.language}
        rung.figures.update(rung_figures(run))
        rung.save(update_fields=["figures"])
    ladder.run = {
        "slug": "sgemm",
        "mode": "profile",
        "system": {"gpu": "NVIDIA H200", "driver": "580.95", "torch": "2.11.0"},
        "ceilings": dict(H200_CEILINGS),
        "quick": False,
        "date": "2026-12-01",
    }
    ladder.save(update_fields=["run"])
    climber = make_user("climber")
    data = report(problem="sgemm", language="cuda", shapes=shapes(YOURS))
    make_submission(climber, sgemm, language="cuda", gpu_model="h200", report_data=data)
    make_user("stuck")
    make_user("newcomer")
    print("seeded")


main()
