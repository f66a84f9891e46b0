"""Per-participant judging variation, shared by assessments and contests (docs/assessments.md).

Each participant (an assessment candidate, a contest entrant) holds a secret `participant_seed`,
drawn once on the server. Every judging of their submissions carries it to the judge, whose parent
mixes it with the worker's own secret into every input seed (judge/protocol.py, JudgeJob version 2):
two participants never get the same inputs, and the seed never reaches a page, the API or the
child process that runs the code.

The same seed picks the participant's hidden benchmark shapes from the problem's
`[[hidden_benchmarks]]` templates (problem.toml: a range per size). They are judged after the
public shapes and count in the score; the participant's own pages never show their sizes
(`participant_report` below), reviewers see them.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from typing import Any

from judge.protocol import HIDDEN_PREFIX, JOB_VERSION_PARTICIPANT

SEED_BITS = 62
CPU_MODEL = "cpu"


def new_participant_seed() -> int:
    """A fresh secret seed (never 0: 0 means "no participant" on the wire)."""
    return secrets.randbits(SEED_BITS) or 1


def hidden_shapes(spec: dict[str, Any], participant_seed: int, gpu_model: str) -> list[dict[str, Any]]:
    """The participant's hidden shapes of one problem: [{"name": "hidden-1", "sizes": {...}}, ...].

    Deterministic in (seed, problem, template), so every judging and rejudge of one participant
    uses the same shapes. `spec` is the catalog's stored spec (ProblemSpec.as_dict). CPU judges use
    a template's `cpu_sizes` and skip templates without them.
    """
    shapes: list[dict[str, Any]] = []
    for template in spec.get("hidden_benchmarks") or []:
        ranges = template.get("cpu_sizes") if gpu_model == CPU_MODEL else template.get("sizes")
        if not ranges:
            continue
        # A string seed makes random.Random hash it with SHA-512: independent draws per template.
        digest = hashlib.sha256(f"{participant_seed}:{spec.get('slug')}:{template.get('name')}".encode()).hexdigest()
        rng = random.Random(digest)
        sizes = {}
        for size in spec.get("sizes") or sorted(ranges):
            r = ranges[size]
            sizes[size] = int(r["lo"]) + int(r.get("step", 1)) * rng.randrange((r["hi"] - r["lo"]) // r["step"] + 1)
        shapes.append({"name": f"{HIDDEN_PREFIX}{len(shapes) + 1}", "sizes": sizes})
    return shapes


def job_fields(participant_seed: int, hidden: list[dict[str, Any]]) -> dict[str, Any]:
    """The JudgeJob fields of a participant's judging (empty for practice)."""
    if not participant_seed and not hidden:
        return {}
    return {"participant_seed": participant_seed, "hidden_benchmarks": hidden, "version": JOB_VERSION_PARTICIPANT}


def is_hidden_name(name: Any) -> bool:
    return isinstance(name, str) and name.startswith(HIDDEN_PREFIX)


REDACTED_OUTPUT = "(The output of scored runs is shown to reviewers only: it could reveal the hidden shapes.)"


def participant_report(report: dict[str, Any] | None, mode: str) -> dict[str, Any] | None:
    """A report as its participant may see it: the hidden shapes' rows, cases and output removed.

    The count of hidden shapes stays (`hidden_shapes`), their sizes, bytes and throughputs go (a
    throughput and a time give the size back). Program output of a scored run goes too: the code
    could print its arguments. Messages naming a hidden shape are replaced.
    """
    if not report:
        return report
    view = dict(report)
    benchmarks = view.get("benchmarks") or []
    hidden = [b for b in benchmarks if is_hidden_name(b.get("name"))]
    view["benchmarks"] = [b for b in benchmarks if not is_hidden_name(b.get("name"))]
    view["cases"] = [c for c in view.get("cases") or [] if not is_hidden_name(c.get("name"))]
    view["hidden_shapes"] = len(hidden)
    if mode != "run":
        for key in ("stdout", "stderr"):
            if view.get(key):
                view[key] = REDACTED_OUTPUT
    message = str(view.get("message") or "")
    if HIDDEN_PREFIX in message:
        view["message"] = f"A hidden benchmark shape ended the judging ({view.get('verdict')}); reviewers see which."
    system = dict(view.get("system") or {})
    for key in ("drain_detail", "gpu_during_timing", "parent_clock"):
        if isinstance(system.get(key), dict):
            system[key] = {k: v for k, v in system[key].items() if not is_hidden_name(k)}
    view["system"] = system
    return view
