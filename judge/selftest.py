"""`python -m judge selftest`: every problem's corpus judged against its expected verdicts
(docs/judging.md section 10; the entries and their expectations are in each problem.toml)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

from judge import spec as specmod
from judge.cli import EXIT_FAILED, EXIT_NO_SANDBOX, EXIT_OK, EXIT_USAGE, cli_config, sandbox_refusal, text_table
from judge.protocol import JudgeJob


def corpus(spec: specmod.ProblemSpec) -> list[tuple[str, Path, specmod.Solution]]:
    entries = [(f"solutions/{s.file}", spec.directory / "solutions" / s.file, s) for s in spec.solutions]
    for name, language in (("expert_triton.py", "triton"), ("expert_cuda.cu", "cuda")):
        path = spec.reference_dir / name
        if path.is_file() and language in spec.languages:
            entries.append(
                (
                    f"reference_kernels/{spec.slug}/{name}",
                    path,
                    specmod.Solution(file=name, language=language, expect="accepted", why="expert solution"),
                )
            )
    return entries


# Two judgings of the same work differ by a few percent under --quick timing; a cheat that
# worked (a replayed result, work outside the timed window) is many times faster, not 10%.
TIMED_LIKE_MIN_RATIO = 0.9


def timed_like(report: Any, honest: Any, honest_file: str) -> tuple[bool, str]:
    """A cheat accepted but no faster than the honest file (within timing noise): the work it
    meant to hide or skip was timed, so it gained nothing."""
    if honest is None or honest.verdict != "accepted" or not honest.score_us:
        return False, f"no accepted judging of {honest_file} in this run to compare with"
    ratio = report.score_us / honest.score_us
    if ratio >= TIMED_LIKE_MIN_RATIO:
        return True, f"neutralised: timed in full, {ratio:.2f}x the time of {honest_file}"
    return False, f"faster than {honest_file} ({ratio:.2f}x): work escaped the timing"


# On a CPU host CUDA C++ is compiled but not run: an accepted or a compile error entry still
# says something (compiles / does not); anything else needs the GPU.
CPU_CUDA_EXPECTS = ("accepted", "compile_error")


def judged_on_this_host(sol: specmod.Solution, on_gpu: bool) -> bool:
    if on_gpu:
        return True
    if sol.language == "cuda" and not sol.gpu_only and sol.expect in CPU_CUDA_EXPECTS:
        return True
    return not (sol.gpu_only or sol.language in ("cuda", "cupy"))


def cmd_selftest(args: argparse.Namespace) -> int:
    from judge.harness import judge_job

    config = cli_config(args.cpu_only)
    if sandbox_refusal(config):
        return EXIT_NO_SANDBOX
    if args.time_cap:
        config.limit_cap_seconds = args.time_cap
    if args.quick:
        from judge.harness.child.timing import TimingPolicy

        # Every rule still applies; only the timing statistics are looser (verdicts, not scores).
        config.policy = TimingPolicy(
            warmup_min=2, warmup_max=8, warmup_seconds=5, min_reps=10, max_reps=400, max_seconds=0.5, ci_target_rel=0.01
        )
        config.pool_sets = 4
    on_gpu = config.device == "cuda"
    mode = args.mode or ("benchmark" if on_gpu else "test")
    specs, errors = specmod.load_all()
    for error in errors:
        print(f"error {error}")
    wanted = set(args.slugs)
    unknown = wanted - {s.slug for s in specs}
    if unknown:
        print(f"unknown problems: {', '.join(sorted(unknown))}", file=sys.stderr)
        return EXIT_USAGE
    rows = []
    surprises = 0
    skipped = 0
    reports: dict[tuple[str, str, str], Any] = {}  # (slug, file, mode) -> report, for or_timed_like
    began = time.monotonic()
    chosen = [
        (spec, label, path, sol)
        for spec in specs
        if not wanted or spec.slug in wanted
        for label, path, sol in corpus(spec)
        if not args.only or any(part in label for part in args.only)
    ]
    if sum(judged_on_this_host(sol, on_gpu) for *_, sol in chosen) <= 1:
        config.warm_pool = False  # a warm process for a next judging that never comes is waste
    for spec, label, path, sol in chosen:
        expect = sol.expect
        cpu_cuda = not on_gpu and sol.language == "cuda" and not sol.gpu_only and expect in CPU_CUDA_EXPECTS
        if not judged_on_this_host(sol, on_gpu):
            reason = "gpu_only" if sol.gpu_only else f"{sol.language} needs a GPU"
            rows.append([spec.slug, label, sol.language, expect, "-", f"skipped ({reason}; CPU host)", "-"])
            skipped += 1
            continue
        if cpu_cuda and expect == "accepted":
            expect = "rejected"  # "compiled OK, not run": the CPU host's verdict for good CUDA
        job = JudgeJob(
            submission_id=f"selftest-{spec.slug}-{sol.file}",
            attempt=1,
            problem=spec.slug,
            language=sol.language,
            source=path.read_text(encoding="utf-8"),
            mode=sol.mode if sol.mode and not args.mode else mode,
            seed=args.seed,
        )
        t0 = time.monotonic()
        report = judge_job(job, config=config)
        reports[(spec.slug, sol.file, job.mode)] = report
        ok = report.verdict == expect
        note = ""
        if not ok and sol.or_timed_like and report.verdict == "accepted":
            key = (spec.slug, sol.or_timed_like, job.mode)  # a score needs the same mode
            if key not in reports:  # not judged yet in this run (order, --only): judge it now
                honest = next(x for x in spec.solutions if x.file == sol.or_timed_like)
                honest_job = dataclasses.replace(
                    job,
                    submission_id=f"selftest-{spec.slug}-{honest.file}",
                    language=honest.language,
                    source=(spec.directory / "solutions" / honest.file).read_text(encoding="utf-8"),
                )
                reports[key] = judge_job(honest_job, config=config)
            ok, note = timed_like(report, reports[key], sol.or_timed_like)
            report.message += f" ({note})"
            note = f", {note}"
        if cpu_cuda and expect == "rejected":
            from judge.harness.languages.cuda import CPU_MESSAGE as CPU_CUDA_MESSAGE

            ok = ok and report.message == CPU_CUDA_MESSAGE
        surprises += not ok
        status = ("ok" if ok else "UNEXPECTED") + (" (compiled only)" if cpu_cuda else "")
        rows.append([spec.slug, label, sol.language, expect, report.verdict, status, f"{time.monotonic() - t0:.1f}s"])
        if not ok or args.verbose:
            print(
                f"--- {spec.slug} {label}: expected {expect}, got {report.verdict}: {report.message[:600]}",
                flush=True,
            )
        else:  # one line per entry as it finishes: a run cut short still shows how far it got
            print(f"ok {label} -> {report.verdict}{note} ({time.monotonic() - t0:.1f}s)", flush=True)
    config.close_pool()  # no warm process outlives the run
    print(text_table(["problem", "file", "language", "expected", "got", "status", "time"], rows))
    device = "GPU" if on_gpu else "CPU"
    print(
        f"{len(rows) - skipped} judged in {mode} mode on {device}, {skipped} skipped, {surprises} unexpected "
        f"({time.monotonic() - began:.0f} s)"
    )
    return EXIT_FAILED if surprises or errors else EXIT_OK


# ---------------------------------------------------------------------------------------------
# worker, ceilings
