"""The pipeline's own overhead: create_submission -> broker -> judge worker -> record_report.

The judge runs the trivial stand-in harness (no compile, no GPU), so what is timed is the path a
submission travels: the web's insert and publish, the broker hop to the judge, the judge's
progress and report, the broker hop back, and the fenced write. Real processes, as in production.

    .venv/web/bin/python bench/pipeline.py                       # Redis + PostgreSQL (default)
    .venv/web/bin/python bench/pipeline.py --broker filesystem   # the laptop default: files + SQLite
    .venv/web/bin/python bench/pipeline.py --write               # and update docs/benchmarks.md

Two measurements per setup: one submission at a time (latency: nothing queued ahead), and all
of them at once (a burst: each waits for those ahead; gives throughput of one judge worker).
Needs redis-server and PostgreSQL on 127.0.0.1 for the default setup (DATABASE_URL to change it).
"""

from __future__ import annotations

import argparse
import os
import platform as stdlib_platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def ensure_postgres_db(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    exists = subprocess.run(
        ["psql", admin, "-tAc", f"SELECT 1 FROM pg_database WHERE datname='{name}'"],
        capture_output=True,
        text=True,
        check=True,
    )
    if exists.stdout.strip() != "1":
        subprocess.run(["psql", admin, "-qc", f'CREATE DATABASE "{name}"'], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--broker", choices=["redis", "filesystem"], default="redis")
    parser.add_argument("-n", type=int, default=200, help="submissions per measurement")
    parser.add_argument("--write", action="store_true", help="update the Pipeline section of docs/benchmarks.md")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="gs-bench-pipeline-"))
    sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]
    from tests.pipeline.procs import RedisServer, Stack, wait_for

    redis = None
    if args.broker == "redis":
        database_url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gridstride_bench")
        ensure_postgres_db(database_url)
        redis = RedisServer(work / "redis", appendfsync="everysec")  # production's setting
        redis.start()
        broker_url = redis.url
    else:
        (work / "stack" / "var").mkdir(parents=True)
        database_url = f"sqlite:///{work / 'stack' / 'var' / 'gridstride.sqlite3'}"
        broker_url = "filesystem://"
    os.environ.update(
        DEBUG="1",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=broker_url,
        GRIDSTRIDE_VAR_DIR=str(work / "stack" / "var"),
        SUBMISSIONS_PER_MINUTE="0",
        DJANGO_SETTINGS_MODULE="gridstride.settings",
    )
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from gridstride.submissions.actions import create_submission
    from gridstride.submissions.models import Submission

    call_command("migrate", verbosity=0)
    call_command("sync_problems", verbosity=0)
    Submission.objects.all().delete()
    user, _ = get_user_model().objects.get_or_create(username="bench")

    stack = Stack(
        work / "stack",
        database_url=os.environ["DATABASE_URL"],
        broker_url=broker_url,
        JUDGE_LEASE_S="120",
        JUDGE_HEARTBEAT_S="15",
        JUDGE_SWEEP_INTERVAL_S="15",
        JUDGE_TIME_LIMIT_S="1200",
        CELERY_VISIBILITY_TIMEOUT_S="3600",
    )
    stack.env.pop("GRIDSTRIDE_TRIVIAL_DIR")  # no marker files: time the pipeline, not the test hooks
    rows: list[dict[str, Any]] = []
    try:
        stack.start_web()
        stack.start_judge()

        def submit() -> tuple[float, Submission]:
            t0 = time.time()
            s = create_submission(owner=user, problem="vector_add", language="triton", source="x = 1\n", mode="run")
            return t0, s

        def finished(pks: list[int]) -> dict[int, datetime]:
            return dict(
                Submission.objects.filter(pk__in=pks, status="done").values_list("pk", "finished_at")  # type: ignore[arg-type]
            )

        def finished_at(pk: int) -> datetime | None:
            return finished([pk]).get(pk)

        # Polling does not change what is measured (the recorded finished_at), but SQLite's readers
        # hold off its writer: poll it gently.
        poll_s = 0.002 if args.broker == "redis" else 0.05
        # Warm-up: connections, imports, the judge's first job.
        for _ in range(5):
            _, s = submit()
            wait_for("warm-up", partial(finished_at, s.pk), 60, poll_s)

        sequential = []
        for _ in range(args.n):
            t0, s = submit()
            done_at = wait_for("a verdict", partial(finished_at, s.pk), 60, poll_s)
            sequential.append(done_at.timestamp() - t0)
        rows.append(summary("one at a time", sequential))

        start = time.time()
        burst = [submit() for _ in range(args.n)]
        pks = [s.pk for _, s in burst]
        wait_for("the burst", lambda: len(finished(pks)) == len(pks), 600, 0.05)
        done = finished(pks)
        latencies = [done[s.pk].timestamp() - t0 for t0, s in burst]
        total = max(d.timestamp() for d in done.values()) - start
        row = summary(f"burst of {args.n}", latencies)
        row["throughput"] = f"{args.n / total:.0f} /s"
        rows.append(row)
        recorded = Submission.objects.filter(pk__in=pks, events__kind="recorded").count()
        assert recorded == len(pks), f"{recorded} recorded events for {len(pks)} submissions"
    except BaseException:
        print(f"logs kept in {work}", file=sys.stderr)
        raise
    else:
        shutil.rmtree(work, ignore_errors=True)
    finally:
        stack.stop()
        if redis is not None:
            redis.stop()

    setup = "Redis 7 + PostgreSQL" if args.broker == "redis" else "filesystem broker + SQLite"
    lines = [
        f"| {setup} | {r['mode']} | {r['n']} | {r['p50']} | {r['p95']} | {r['max']} | {r.get('throughput', '')} |"
        for r in rows
    ]
    for line in lines:
        print(line)
    if args.write:
        write_doc(args.broker, lines)
    return 0


def summary(mode: str, seconds: list[float]) -> dict[str, Any]:
    ms = [s * 1000 for s in seconds]
    return {
        "mode": mode,
        "n": len(ms),
        "p50": f"{statistics.median(ms):.0f} ms",
        "p95": f"{pct(ms, 95):.0f} ms",
        "max": f"{max(ms):.0f} ms",
    }


HEADER = """## Pipeline

Overhead of the pipeline itself, from `create_submission()` to the recorded verdict, with the
trivial stand-in harness (no compile, no GPU): `bench/pipeline.py` ({when}, {machine}). Real
processes: the Celery web worker (concurrency 1, with beat, as `./gs start` runs it) and one
judge worker; one submission at a time, then all at once (its throughput is bounded by the single
web worker process: production runs four). Goal: p50 under 200 ms. The dev machine is shared:
load average {load} when the last row was measured.

| setup | submissions | n | p50 | p95 | max | throughput |
| --- | --- | --- | --- | --- | --- | --- |
"""


def write_doc(broker: str, lines: list[str]) -> None:
    """Replace this setup's rows in the Pipeline section; other sections stay as they are."""
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    start = text.find("## Pipeline")
    notes = ""
    if start == -1:
        section_rows: list[str] = []
        before, after = text.rstrip() + "\n\n", ""
    else:
        end = text.find("\n## ", start + 1)
        end = len(text) if end == -1 else end + 1
        section = text[start:end]
        before, after = text[:start], text[end:]
        section_lines = section.splitlines()
        section_rows = [
            line for line in section_lines if line.startswith("| ") and not line.startswith(("| setup", "| ---"))
        ]
        # Notes written under the table (what the numbers mean) stay.
        last_row = max(i for i, line in enumerate(section_lines) if line.startswith("| ")) if section_rows else 0
        notes = "\n".join(section_lines[last_row + 1 :]).strip()
    label = "| Redis" if broker == "redis" else "| filesystem"
    kept = [r for r in section_rows if not r.startswith(label)]
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    machine = f"{os.cpu_count()} cores, {stdlib_platform.machine()}, Python {stdlib_platform.python_version()}"
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    body = HEADER.format(when=when, machine=machine, load=load) + "\n".join([*kept, *lines]) + "\n"
    if notes:
        body += "\n" + notes + "\n"
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(before + body + ("\n" + after if after else ""))


if __name__ == "__main__":
    sys.exit(main())
