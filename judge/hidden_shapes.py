"""What makes a problem's [[hidden_benchmarks]] templates fair scored shapes (stdlib only).

judge/spec.py checks that a template is well formed: each size a fixed int or a range, every
tensor non-empty at both ends. This module holds the rules that make the drawn shapes worth
scoring, for `python -m judge validate` (judge/cli.py) and tests/judge/test_hidden_shapes.py:

- every problem declares templates, and at least one gives CPU judges sizes (`cpu_sizes`);
- a candidate cannot tune to them: in every GPU draw some size is odd (its range starts odd and
  steps by an even number), so no power-of-two tile divides the shape, and a template has at least
  MIN_DRAWS distinct shapes;
- they are ranked like the public shapes and stay within what the problem is known to run: at
  every corner of the ranges the work (the cost model's bytes and, where the public shapes do
  arithmetic, its flops) lies between WORK_FLOOR x the smallest public benchmark's and
  WORK_CEILING x the largest's, and the tensors take no more memory than WORK_CEILING x the
  largest public benchmark's (the GPU's memory and the time limits were sized for those);
- CPU sizes stay within CPU_CEILING x the memory of the largest [[cpu_benchmarks]] shape (the
  Triton interpreter is slow, and CPU results are unranked anyway).

Whether a drawn shape is one the reference can generate (a relation between sizes such as
num_heads being a multiple of num_kv_heads) is checked by running the reference at the corners of
the CPU sizes (judge/cli.py validate_problem); GPU sizes are too large to generate in a validation.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Mapping

from judge import spec as specmod

WORK_FLOOR, WORK_CEILING = 0.25, 1.25
CPU_CEILING = 4.0
MIN_DRAWS = 1000


def corners(ranges: Mapping[str, specmod.SizeRange]) -> Iterator[dict[str, int]]:
    """Every combination of each size's lowest and highest value."""
    names = list(ranges)
    for ends in itertools.product(*[sorted({ranges[k].lo, ranges[k].hi}) for k in names]):
        yield dict(zip(names, ends, strict=True))


def draw(ranges: Mapping[str, specmod.SizeRange], rng: random.Random) -> dict[str, int]:
    """One shape from the ranges (lo + step * k, uniformly), as the site draws a participant's."""
    return {k: r.lo + r.step * rng.randrange(r.values()) for k, r in ranges.items()}


def memory_bytes(problem: specmod.ProblemSpec, sizes: Mapping[str, int]) -> int:
    """Bytes of every input and output tensor at these sizes."""
    return sum(t.nbytes(sizes) for t in problem.inputs + problem.outputs)


def always_odd(r: specmod.SizeRange) -> bool:
    return r.lo % 2 == 1 and (r.step % 2 == 0 or r.lo == r.hi)


def distinct_draws(ranges: Mapping[str, specmod.SizeRange]) -> int:
    count = 1
    for r in ranges.values():
        count *= r.values()
    return count


Measure = tuple[str, float, float, Callable[[Mapping[str, int]], float]]


def _measures(problem: specmod.ProblemSpec) -> list[Measure]:
    """(what, smallest public value, largest public value, function of sizes) for the work."""
    found: list[Measure] = []
    for what, of in (
        ("bytes moved (cost model)", problem.cost.bytes_for),
        ("flops (cost model)", problem.cost.flops_for),
    ):
        values = [of(c.sizes) for c in problem.benchmarks]
        if min(values) > 0:  # a problem that does no arithmetic (transpose) is ranked on bytes only
            found.append((what, min(values), max(values), of))
    return found


def problem_issues(problem: specmod.ProblemSpec) -> list[str]:
    """What the problem as a whole lacks: templates, or one with CPU sizes."""
    if not problem.hidden_benchmarks:
        return ["declares no [[hidden_benchmarks]] (every problem needs per-participant hidden shapes)"]
    if not any(t.cpu_sizes for t in problem.hidden_benchmarks):
        return ["no [[hidden_benchmarks]] template has cpu_sizes: CPU judges would get no hidden shape"]
    return []


def issues_of(problem: specmod.ProblemSpec, template: specmod.ShapeTemplate) -> list[str]:
    """Why one template does not give fair scored shapes (empty when it does)."""
    where = f"[[hidden_benchmarks]] {template.name!r}"
    issues = []
    if not any(always_odd(r) for r in template.sizes.values()):
        issues.append(
            f"{where}: no size is odd in every draw (start a range at an odd number and step by an even "
            "one), so a draw may be a multiple of a tile"
        )
    if distinct_draws(template.sizes) < MIN_DRAWS:
        issues.append(f"{where}: only {distinct_draws(template.sizes)} distinct shapes (at least {MIN_DRAWS})")
    public_memory = max(memory_bytes(problem, c.sizes) for c in problem.benchmarks)
    measures = _measures(problem)
    for corner in corners(template.sizes):
        memory = memory_bytes(problem, corner)
        if memory > WORK_CEILING * public_memory:
            issues.append(
                f"{where}: at {corner} the tensors take {memory / 2**20:,.0f} MiB, over {WORK_CEILING} x the "
                f"largest public benchmark's {public_memory / 2**20:,.0f} MiB"
            )
        for what, low, high, of in measures:
            value = of(corner)
            if not WORK_FLOOR * low <= value <= WORK_CEILING * high:
                issues.append(
                    f"{where}: at {corner} the {what} is {value:.4g}, outside {WORK_FLOOR} x the smallest public "
                    f"benchmark's ({low:.4g}) to {WORK_CEILING} x the largest's ({high:.4g})"
                )
    if template.cpu_sizes and problem.cpu_benchmarks:
        cpu_memory = max(memory_bytes(problem, c.sizes) for c in problem.cpu_benchmarks)
        for corner in corners(template.cpu_sizes):
            memory = memory_bytes(problem, corner)
            if memory > CPU_CEILING * cpu_memory:
                issues.append(
                    f"{where}: at cpu_sizes {corner} the tensors take {memory / 2**20:,.2f} MiB, over "
                    f"{CPU_CEILING} x the largest [[cpu_benchmarks]] shape's {cpu_memory / 2**20:,.2f} MiB"
                )
    return issues


def template_issues(problem: specmod.ProblemSpec) -> list[str]:
    """Every rule above the problem's templates break (empty when they give fair shapes)."""
    return problem_issues(problem) + [m for t in problem.hidden_benchmarks for m in issues_of(problem, t)]


def template_line(text: str, name: str) -> int | None:
    """The line of the template's `name = "..."` in problem.toml (for file:line messages)."""
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped == "[[hidden_benchmarks]]"
        elif inside and stripped.replace(" ", "") in (f'name="{name}"', f"name='{name}'"):
            return number
    return None
