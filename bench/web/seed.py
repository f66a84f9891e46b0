"""Fill the database with a realistic history: 2,000 users and 100,000 submissions (bulk_create).

Run through Django (bench/web/run.py does): `python manage.py shell -c "import bench.web.seed as s; s.main()"`
or import and call seed(). The mix: softmax the most popular problem; 60 % of runs on an H200,
15 % on an H100, 25 % on the CPU judge; half correctness runs, half full judgings; 55 % accepted.
Accepted full judgings carry a full report (cases, three benchmark shapes with confidence
intervals, system, ceilings), so leaderboards read the same JSON they read in production.
A few dozen submissions are still queued or running, for the status poll.
"""

from __future__ import annotations

import math
import random
import time
import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem
from gridstride.submissions.models import Submission

from judge.spec import evaluate

USERS = 2_000
SUBMISSIONS = 100_000
BATCH = 2_000
PASSWORD = "bench-password-not-secret"
CEILINGS = {"dram_gbps": 4300.0, "fp32_tflops": 67.0, "bf16_tflops": 740.0, "fp8_tflops": 1480.0}
ROOF_KEYS = {"fp32": "fp32_tflops", "bf16_tensor": "bf16_tflops", "fp8_tensor": "fp8_tflops"}
PROBLEM_WEIGHTS = {"softmax": 30, "vector_add": 25, "reduction": 20, "matmul": 15, "paged_attention": 10}
GPU_WEIGHTS = {"h200": 60, "h100": 15, "cpu": 25}
VERDICT_WEIGHTS = {
    "accepted": 55,
    "wrong_answer": 20,
    "compile_error": 10,
    "runtime_error": 8,
    "time_limit": 4,
    "rejected": 2,
    "internal_error": 1,
}
LANGUAGE_WEIGHTS = {"triton": 45, "cuda": 35, "pytorch": 12, "cupy": 8}


def pick(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _shape(case: dict[str, Any], cost: dict[str, Any], skill: float, rng: random.Random) -> dict[str, Any]:
    flops = evaluate(cost.get("flops", "0"), case["sizes"])
    nbytes = evaluate(cost.get("bytes", "0"), case["sizes"])
    peak = CEILINGS[ROOF_KEYS[cost.get("compute_roof", "fp32")]]
    floor_us = max(nbytes / (CEILINGS["dram_gbps"] * 1e9), flops / (peak * 1e12)) * 1e6
    median = floor_us / skill * rng.uniform(0.98, 1.02)
    half = median * rng.uniform(0.001, 0.006)
    reference = floor_us / 0.7
    return {
        "name": case["name"],
        "sizes": case["sizes"],
        "n": rng.randint(50, 400),
        "median_us": median,
        "mean_us": median * 1.01,
        "p10_us": median * 0.99,
        "p90_us": median * 1.02,
        "min_us": median * 0.98,
        "ci_low_us": median - half,
        "ci_high_us": median + half,
        "flops": flops,
        "bytes": nbytes,
        "gbps": nbytes / (median * 1e-6) / 1e9,
        "tflops": flops / (median * 1e-6) / 1e12,
        "sol_pct": floor_us / median * 100,
        "floor_us": floor_us,
        "reference_median_us": reference,
        "speedup_vs_reference": reference / median,
    }


def _report(problem: Problem, language: str, mode: str, verdict: str, gpu: str, rng: random.Random) -> dict[str, Any]:
    spec = problem.current_version.spec if problem.current_version else {}
    tests = spec.get("tests", [])
    cases = [
        {"name": t["name"], "sizes": t["sizes"], "passed": True, "max_abs_err": 1e-7, "max_rel_err": 2e-7}
        for t in tests[:9]
    ]
    report: dict[str, Any] = {
        "submission_id": "",
        "attempt": 1,
        "problem": problem.slug,
        "language": language,
        "mode": "benchmark" if mode == "submit" else "test",
        "verdict": verdict,
        "message": "",
        "ranked": False,
        "cases": cases,
        "benchmarks": [],
        "score_us": None,
        "sol_pct": None,
        "system": {
            "device": "cuda" if gpu != "cpu" else "cpu",
            "gpu": {"h200": "NVIDIA H200", "h100": "NVIDIA H100"}.get(gpu),
        },
        "ceilings": CEILINGS if gpu != "cpu" else {},
        "elapsed_s": rng.uniform(2, 20),
        "version": 1,
    }
    if verdict == "wrong_answer" and cases:
        cases[-1].update(
            passed=False,
            mismatch_count=12,
            mismatches=[{"index": [0, 3], "expected": 0.25, "got": 0.5, "abs_err": 0.25, "rel_err": 1.0}],
        )
    elif verdict == "compile_error":
        report.update(cases=[], compile_log="solution.cu(12): error: expected a ';'\n1 error detected")
    elif verdict != "accepted":
        report["message"] = f"{verdict.replace('_', ' ')} in case {cases[0]['name'] if cases else '?'}"
    if verdict == "accepted" and mode == "submit":
        skill = min(0.97, max(0.05, rng.betavariate(2.5, 2.0)))
        shapes = [_shape(b, spec.get("cost", {}), skill, rng) for b in spec.get("benchmarks", [])]
        report["benchmarks"] = shapes
        if shapes:
            report["score_us"] = math.exp(sum(math.log(s["median_us"]) for s in shapes) / len(shapes))
            report["sol_pct"] = math.exp(sum(math.log(s["sol_pct"]) for s in shapes) / len(shapes))
        report["ranked"] = gpu != "cpu"
    return report


def seed(users: int = USERS, submissions: int = SUBMISSIONS, seed_value: int = 7) -> dict[str, Any]:
    """Create the users and submissions (on top of what exists). Returns counts and seconds."""
    started = time.monotonic()
    rng = random.Random(seed_value)
    sync_problems()
    problems = {p.slug: p for p in Problem.objects.select_related("current_version").filter(is_active=True)}
    weights = {slug: w for slug, w in PROBLEM_WEIGHTS.items() if slug in problems}
    user_model = get_user_model()
    password = make_password(PASSWORD)
    first = user_model.objects.count()
    user_model.objects.bulk_create(
        [
            user_model(username=f"bench{first + i:05d}", email=f"bench{first + i}@example.com", password=password)
            for i in range(users)
        ],
        batch_size=BATCH,
    )
    owner_ids = list(user_model.objects.filter(username__startswith="bench").values_list("pk", flat=True))
    made = 0
    while made < submissions:
        rows = []
        for _ in range(min(BATCH, submissions - made)):
            problem = problems[pick(rng, weights)]
            languages = [lang for lang in LANGUAGE_WEIGHTS if lang in problem.languages] or ["triton"]
            language = pick(rng, {k: LANGUAGE_WEIGHTS[k] for k in languages})
            gpu = pick(rng, GPU_WEIGHTS)
            mode = "submit" if rng.random() < 0.5 else "run"
            verdict = pick(rng, VERDICT_WEIGHTS)
            report = _report(problem, language, mode, verdict, gpu, rng)
            rows.append(
                Submission(
                    public_id=uuid.uuid4(),
                    owner_id=rng.choice(owner_ids),
                    problem=problem,
                    problem_version=problem.current_version,
                    language=language,
                    source="# bench\n" + "x = 1\n" * rng.randint(10, 60),
                    mode=mode,
                    gpu_model=gpu,
                    status="done",
                    verdict=verdict,
                    ranked=report["ranked"],
                    score_us=report["score_us"] if verdict == "accepted" else None,
                    sol_pct=report["sol_pct"] if verdict == "accepted" else None,
                    report=report,
                    progress={"stage": "done", "done": 1, "total": 1},
                    is_public=rng.random() < 0.2,
                )
            )
        with transaction.atomic():
            Submission.objects.bulk_create(rows, batch_size=500)
        made += len(rows)
    # bulk_create stamps every row "now": spread them over the last 90 days instead.
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE submissions_submission SET created_at = now() - random() * interval '90 days', "
                "queued_at = created_at, finished_at = created_at WHERE source LIKE '# bench%%'"
            )
            cursor.execute("ANALYZE submissions_submission")
    return {"users": users, "submissions": made, "seconds": round(time.monotonic() - started, 1)}


def main() -> None:
    print(seed())
