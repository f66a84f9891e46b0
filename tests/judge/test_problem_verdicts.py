"""Verdicts on every problem that exists: a correct PyTorch submission (built from the trusted
reference) is accepted on every CPU case and timed, an empty one is a wrong answer; a wrong
signature names the right one."""

from __future__ import annotations

import pytest

from judge import spec as specmod
from tests.judge.judging_helpers import judge

SPECS, _ = specmod.load_all()


def reference_backed_solution(spec: specmod.ProblemSpec) -> str:
    """A PyTorch submission that writes the trusted reference's outputs (accepted by design).

    The reference's source is embedded: reference_kernels/ is not visible inside the sandbox."""
    source = (spec.reference_dir / "reference.py").read_text()
    return f"""
_ref = {{}}
exec(compile({source!r}, "reference", "exec"), _ref)
NAMES = {spec.signature()!r}
INPUTS = {[t.name for t in spec.inputs]!r}
OUTPUTS = {[t.name for t in spec.outputs]!r}
SIZES = {list(spec.sizes)!r}


def solve(*args):
    given = dict(zip(NAMES, args))
    out = _ref["reference"](**{{n: given[n] for n in INPUTS}}, **{{s: given[s] for s in SIZES}})
    for name in OUTPUTS:
        given[name].copy_(out[name].to(given[name].dtype))
"""


def covering_output_dtypes(specs: list[specmod.ProblemSpec]) -> list[specmod.ProblemSpec]:
    """The fewest problems, in catalog order, whose outputs hold every output dtype of the
    catalog: an unwritten output is found by its dtype's poison, the same check on every problem."""
    chosen, seen = [], set()
    for spec in specs:
        dtypes = {t.dtype for t in spec.outputs}
        if not dtypes <= seen:
            chosen.append(spec)
            seen |= dtypes
    return chosen


POISON_FORMS = covering_output_dtypes(SPECS)


@pytest.mark.parametrize("spec", POISON_FORMS, ids=[s.slug for s in POISON_FORMS])
def test_a_submission_that_writes_nothing_is_a_wrong_answer(spec: specmod.ProblemSpec) -> None:
    report = judge("def solve(*args):\n    pass\n", problem=spec.slug)
    assert report.verdict == "wrong_answer"
    assert "not written at all" in report.message


# The message is built from the spec's signature alone: problems with signatures of every form
# (sizes only, several inputs and outputs, integer and int8 tensors) stand for the rest.
SIGNATURE_FORMS = [s for s in SPECS if s.slug in ("vector_add", "paged_attention", "moe_routing", "kv_cache_int8")]


@pytest.mark.parametrize("spec", SIGNATURE_FORMS, ids=[s.slug for s in SIGNATURE_FORMS])
def test_a_wrong_signature_names_the_problems_signature(spec: specmod.ProblemSpec) -> None:
    report = judge("def solve(x):\n    pass\n", problem=spec.slug)
    assert report.verdict == "runtime_error"
    assert f"solve({', '.join(spec.signature())})" in report.message


@pytest.mark.parametrize("spec", SPECS, ids=[s.slug for s in SPECS])
def test_a_reference_backed_submission_is_accepted_in_benchmark_mode(spec: specmod.ProblemSpec) -> None:
    """Every problem on the CPU: accepted on every CPU case (a submit checks them all before it
    times), and the benchmark path: input pools refilled between calls and checked unchanged (a
    harness that disturbed its own inputs would show here as inputs-modified)."""
    report = judge(reference_backed_solution(spec), problem=spec.slug, mode="benchmark")
    assert report.verdict == "accepted", report.message
    assert len(report.cases) == len([c for c in spec.tests if not c.gpu_only])
    assert report.benchmarks
    for shape in report.benchmarks:  # more timed calls than input sets: sets were refilled and reused
        assert shape.set_medians_us and shape.n > len(shape.set_medians_us), shape


# What the CPU selftest judges: the Triton and PyTorch completions (the CUDA and CuPy ones are
# gpu_only; tests/judge/test_problem_content.py compiles them).
STARTERS_COMPLETED = [
    (spec.slug, sol.file)
    for spec in SPECS
    for sol in spec.solutions
    if "_starter_completed." in sol.file and sol.language in ("triton", "pytorch") and not sol.gpu_only
]


@pytest.mark.parametrize(("slug", "file"), STARTERS_COMPLETED, ids=[f"{s}/{f}" for s, f in STARTERS_COMPLETED])
def test_the_starter_completed_as_its_todos_say_is_accepted_by_the_cpu_selftest(
    slug: str, file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a CPU host the judge runs Triton in its interpreter and PyTorch on the CPU: a learner's
    straightforward code (bf16 tiles straight into tl.dot, and so on) must be accepted there, not
    called wrong."""
    from judge.cli import main

    code = main(["selftest", slug, "--cpu-only", "--only", f"solutions/{file}"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1 judged" in out and "0 unexpected" in out, out
