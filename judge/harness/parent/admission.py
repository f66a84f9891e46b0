"""Admission: what is checked about a job before anything of it runs (docs/judging.md section 6:
the mode, the source's size, the language, the problem and its version, forbidden calls, the
host's devices, a CUDA solve's parameters). Everything here is the trusted parent's own work on
the submitted text."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge import spec as specmod
from judge.harness import languages
from judge.harness.parent import rules
from judge.protocol import MAX_SOURCE_BYTES, JudgeJob, source_text_fault

if TYPE_CHECKING:
    from judge.harness.parent.config import JudgeConfig

log = logging.getLogger("judge.harness")


@dataclass(frozen=True)
class Refusal:
    verdict: str
    message: str
    compile_log: str = ""
    spec: specmod.ProblemSpec | None = None  # the problem, where it loaded (its version goes into the report)


def admit(job: JudgeJob, config: JudgeConfig) -> specmod.ProblemSpec | Refusal:
    """The problem's spec when the job may run, else why not."""
    if job.mode not in ("test", "benchmark", "profile"):
        return Refusal("rejected", f"unknown mode {job.mode!r}: one of test, benchmark, profile")
    text_fault = source_text_fault(job.source)
    if text_fault:  # a NUL or lone surrogate: the file could not even be written as the user sent it
        return Refusal("rejected", text_fault)
    if len(job.source.encode("utf-8", errors="replace")) > MAX_SOURCE_BYTES:
        return Refusal(
            "rejected",
            f"the source is larger than {MAX_SOURCE_BYTES // 1024} KiB; submissions are limited to that size",
        )
    if job.language not in specmod.LANGUAGES:
        return Refusal("rejected", f"unknown language {job.language!r}: one of {', '.join(specmod.LANGUAGES)}")
    try:
        spec = specmod.load(job.problem)
    except specmod.ProblemError as exc:
        if specmod.SLUG_RE.match(job.problem or "") and (specmod.PROBLEMS_DIR / job.problem).is_dir():
            log.error("problem %s does not load on this worker: %s", job.problem, exc)
            return Refusal("internal_error", f"the problem {job.problem!r} is broken on this judge host")
        return Refusal("rejected", f"unknown problem {job.problem!r}")
    refusal = _check_against(job, spec, config)
    return dataclasses.replace(refusal, spec=spec) if refusal else spec


def _check_against(job: JudgeJob, spec: specmod.ProblemSpec, config: JudgeConfig) -> Refusal | None:
    if job.content_hash and job.content_hash != spec.content_hash:
        return Refusal(
            "internal_error",
            f"problem version mismatch: the site expects {job.content_hash}, this judge has {spec.content_hash} "
            "(the worker needs the same problem files as the site)",
        )
    if spec.gpus > 1:
        # Each sandboxed child holds one GPU: judging on fewer than the problem needs would time
        # something else than the problem asks. The judge's fault, not the submission's.
        return Refusal(
            "internal_error",
            f"{spec.slug} needs {spec.gpus} GPUs at once; this judge runs each submission on one GPU",
        )
    if any(set(h["sizes"]) != set(spec.sizes) for h in job.hidden_benchmarks):
        return Refusal("internal_error", f"a hidden shape of the job does not give the sizes {list(spec.sizes)}")
    if job.language not in spec.languages:
        return Refusal(
            "rejected", f"{spec.title} does not accept {job.language}; use one of {', '.join(spec.languages)}"
        )
    forbidden = rules.forbidden(job.source, job.language, spec)
    if forbidden:
        return Refusal("rejected", forbidden)
    language = languages.get(job.language)
    if config.device == "cpu" and language.needs_gpu:
        return Refusal("rejected", language.needs_gpu)
    problem = language.signature_problem(job.source, spec.signature())
    if problem:
        return Refusal("compile_error", problem.message, compile_log=problem.log)
    return None
