"""The fixture ladder of the ladder tests: problems/sgemm with three rungs whose every piece of
text is distinctive (so a test can tell that none of it reached a page), and a figures.json
written in bench/ladder.py's format by its own rung_figures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from site_fixtures import H200_CEILINGS, shape

from bench.ladder import rung_figures
from judge import spec
from judge.protocol import KernelDigest, Report

SLUG = "sgemm"
SGEMM_SHAPES = {
    "4096^3": (4096, 4096, 4096),
    "8192x8192x1024": (8192, 8192, 1024),
    "3000x5000x2000": (3000, 5000, 2000),
}
# Text of the fixture ladder that must never appear before it opens (titles, steps, code, editorial).
RUNGS = [
    ("Zeta naive rung", "zeta step one: a thread per output", 2000.0),
    ("Zeta tiled rung", "zeta step two: shared tiles", 700.0),
    ("Zeta blocked rung", "zeta step three: registers", 200.0),
]
SECRETS = [
    *(title for title, _, _ in RUNGS),
    *(step for _, step, _ in RUNGS),
    *(f"ZETA_SOURCE_{i}" for i in (1, 2, 3)),
    *(f"Zeta editorial paragraph {i}" for i in (1, 2, 3)),
    "Zeta introduction",
    "zeta_kernel_digest",
]


def sgemm_shapes(median_us: float) -> list[Any]:
    return [
        shape(name, {"m": m, "n": n, "k": k}, median_us, flops=2.0 * m * n * k, nbytes=4.0 * (m * k + k * n + m * n))
        for name, (m, n, k) in SGEMM_SHAPES.items()
    ]


def figures_json(paths: list[str]) -> dict[str, Any]:
    """A GPU run's figures.json as bench/ladder.py writes it (its own rung_figures)."""
    rungs = []
    for index, ((title, _, median), path) in enumerate(zip(RUNGS, paths, strict=True), start=1):
        shapes = sgemm_shapes(median)
        run = Report(
            submission_id=f"ladder-{SLUG}-{index}",
            attempt=1,
            problem=SLUG,
            language="cuda",
            mode="benchmark",
            verdict="accepted",
            benchmarks=shapes,
            score_us=median,
            sol_pct=shapes[0].sol_pct,
            kernels=[KernelDigest(name=f"zeta_kernel_digest_{index}", duration_us=median, dram_sol_pct=40.0)],
        )
        rungs.append({"rung": index, "title": title, "path": path, "language": "cuda", **rung_figures(run)})
    system = {"gpu": "NVIDIA H200", "driver": "580.95", "torch": "2.11.0"}
    return {"slug": SLUG, "mode": "benchmark", "system": system, "ceilings": dict(H200_CEILINGS), "rungs": rungs}


def write_ladder(repo: Path, *, hidden: bool = False, figures: bool = True) -> Path:
    """repo/problems/sgemm: the real problem with a three-rung fixture ladder."""
    problem_dir = repo / "problems" / SLUG
    shutil.copytree(spec.PROBLEMS_DIR / SLUG, problem_dir, ignore=shutil.ignore_patterns("ladder"))
    if hidden:
        toml = problem_dir / "problem.toml"
        toml.write_text(toml.read_text().replace(f'slug = "{SLUG}"', f'slug = "{SLUG}"\nhidden = true', 1))
    ladder = problem_dir / "ladder"
    ladder.mkdir()
    paths, entries, sections = [], [], ["Zeta introduction: the fixture's ladder.\n"]
    for i, (title, step, _) in enumerate(RUNGS, start=1):
        path = f"problems/{SLUG}/ladder/{i}_rung.cu"
        (repo / path).write_text(
            f'// ZETA_SOURCE_{i}\nextern "C" void solve() {{ /* <script>alert({i})</script> */ }}\n'
        )
        paths.append(path)
        entries.append(f'[[rungs]]\ntitle = "{title}"\npath = "{path}"\nlanguage = "cuda"\nstep = "{step}"\n')
        sections.append(f"## {title}\n\nZeta editorial paragraph {i}, with `code` and <b onclick=x>markup</b>.\n")
    (ladder / "ladder.toml").write_text("\n".join(entries))
    (ladder / "editorial.md").write_text("\n".join(sections))
    if figures:
        (ladder / "figures.json").write_text(json.dumps(figures_json(paths), indent=1))
    return repo / "problems"
