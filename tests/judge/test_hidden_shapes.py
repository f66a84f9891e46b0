"""Hidden benchmark shapes (problem.toml [[hidden_benchmarks]], judge/hidden_shapes.py): every
problem declares templates that a candidate cannot tune to and that are ranked like its public
shapes, drawn shapes fit the problem's interface, and `python -m judge validate` reports a
template that breaks the rules with its file and line."""

from __future__ import annotations

import importlib.util
import random
import shutil
from pathlib import Path
from types import ModuleType

import pytest
import torch

from judge import hidden_shapes
from judge import spec as specmod
from judge.cli import validate_problem

SPECS = {p.slug: p for p in specmod.load_all()[0]}
PROBLEMS = tuple(sorted(SPECS))
DRAWS = 40


def reference_module(slug: str) -> ModuleType:
    path = specmod.REFERENCE_DIR / slug / "reference.py"
    module_spec = importlib.util.spec_from_file_location(f"hidden_shapes_reference_{slug}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("slug", PROBLEMS)
def test_every_problem_has_fair_hidden_shape_templates(slug: str) -> None:
    problem = SPECS[slug]
    assert problem.hidden_benchmarks, f"{slug} declares no [[hidden_benchmarks]]"
    assert any(t.cpu_sizes for t in problem.hidden_benchmarks), "CPU judges need a template with cpu_sizes"
    assert hidden_shapes.template_issues(problem) == []


@pytest.mark.parametrize("slug", PROBLEMS)
def test_drawn_gpu_shapes_are_odd_inside_their_ranges_and_ranked_like_the_public_ones(slug: str) -> None:
    problem = SPECS[slug]
    rng = random.Random(slug)
    public_bytes = [problem.cost.bytes_for(c.sizes) for c in problem.benchmarks]
    public_memory = max(hidden_shapes.memory_bytes(problem, c.sizes) for c in problem.benchmarks)
    seen = set()
    for template in problem.hidden_benchmarks:
        for _ in range(DRAWS):
            sizes = hidden_shapes.draw(template.sizes, rng)
            seen.add(tuple(sizes.items()))
            assert set(sizes) == set(problem.sizes)
            for name, r in template.sizes.items():
                assert r.lo <= sizes[name] <= r.hi and (sizes[name] - r.lo) % r.step == 0
            assert any(v % 2 for v in sizes.values()), f"{template.name}: {sizes} has no odd size"
            for t in problem.inputs + problem.outputs:
                assert all(d >= 1 for d in t.concrete_shape(sizes)), (t.name, sizes)
            assert hidden_shapes.memory_bytes(problem, sizes) <= hidden_shapes.WORK_CEILING * public_memory
            work = problem.cost.bytes_for(sizes)
            assert (
                hidden_shapes.WORK_FLOOR * min(public_bytes) <= work <= hidden_shapes.WORK_CEILING * max(public_bytes)
            )
    assert len(seen) > DRAWS, "draws repeat: a candidate could learn the shapes"


def cpu_templates() -> list[object]:
    return [
        pytest.param(slug, t, id=f"{slug}/{t.name}")
        for slug in PROBLEMS
        for t in SPECS[slug].hidden_benchmarks
        if t.cpu_sizes
    ]


@pytest.mark.parametrize(("slug", "template"), cpu_templates())
def test_drawn_cpu_shapes_are_generated_and_answered_by_the_reference_with_the_interfaces_tensors(
    slug: str, template: specmod.ShapeTemplate
) -> None:
    """The reference runs on these sizes on a CPU judge: inputs and outputs must have the
    interface's shapes and dtypes (a draw the reference refuses would be an internal error)."""
    problem = SPECS[slug]
    assert template.cpu_sizes is not None
    ref = reference_module(slug)
    rng = random.Random(f"{slug}/{template.name}")
    for sizes in [hidden_shapes.draw(template.cpu_sizes, rng) for _ in range(3)]:
        inputs = ref.generate_inputs(seed=7, device="cpu", **sizes)
        for t in problem.inputs:
            assert tuple(inputs[t.name].shape) == t.concrete_shape(sizes), (sizes, t.name)
            assert inputs[t.name].dtype == getattr(torch, t.dtype)
        outputs = ref.reference(**inputs, **sizes)
        for t in problem.outputs:
            assert tuple(outputs[t.name].shape) == t.concrete_shape(sizes), (sizes, t.name)
            assert bool(torch.isfinite(outputs[t.name].double()).all())


# ---------------------------------------------------------------------------------------------
# `python -m judge validate` reports broken templates (on a copy of vector_add).


def edited_vector_add(tmp_path: Path, old: str, new: str) -> specmod.ProblemSpec:
    shutil.copytree(specmod.PROBLEMS_DIR / "vector_add", tmp_path / "vector_add")
    toml = tmp_path / "vector_add" / "problem.toml"
    text = toml.read_text(encoding="utf-8")
    assert old in text
    toml.write_text(text.replace(old, new, 1), encoding="utf-8")
    return specmod.load_problem(tmp_path / "vector_add")


def test_validate_passes_the_real_templates(tmp_path: Path) -> None:
    assert validate_problem(edited_vector_add(tmp_path, "", "")) == []


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("n = [20_000_001, 120_000_001, 2]", "n = [20_000_000, 120_000_000]", "no size is odd in every draw"),
        ("n = [150_000_001, 300_000_001, 2]", "n = [150_000_001, 900_000_001, 2]", "take 10,300 MiB, over 1.25 x"),
        ("n = [20_000_001, 120_000_001, 2]", "n = [1_001, 120_000_001, 2]", "outside 0.25 x the smallest"),
        ("n = [150_000_001, 300_000_001, 2]", "n = [150_000_001, 150_000_201, 2]", "only 101 distinct shapes"),
        ("cpu_sizes = { n = [40_001, 400_001, 2] }", "cpu_sizes = { n = [40_001, 8_000_001, 2] }", "at cpu_sizes"),
    ],
)
def test_validate_names_the_template_and_its_line_when_a_rule_is_broken(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    problem = edited_vector_add(tmp_path, old, new)
    toml = problem.directory / "problem.toml"
    rows = toml.read_text(encoding="utf-8").splitlines()
    edited = next(i for i, row in enumerate(rows) if new in row)
    name_line = 1 + max(i for i in range(edited) if rows[i].startswith("name = "))  # the template's name
    errors = validate_problem(problem)
    assert any(message in e for e in errors), errors
    assert all(e.startswith(f"{toml}:{name_line}: [[hidden_benchmarks]]") for e in errors), errors


def test_validate_wants_a_template_with_cpu_sizes(tmp_path: Path) -> None:
    problem = edited_vector_add(tmp_path, "cpu_sizes = { n = [40_001, 400_001, 2] }\n", "")
    assert validate_problem(problem) == [
        f"{problem.directory / 'problem.toml'}: no [[hidden_benchmarks]] template has cpu_sizes: "
        "CPU judges would get no hidden shape"
    ]


def test_validate_reports_a_problem_without_templates(tmp_path: Path) -> None:
    shutil.copytree(specmod.PROBLEMS_DIR / "vector_add", tmp_path / "vector_add")
    toml = tmp_path / "vector_add" / "problem.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text[: text.index("[[hidden_benchmarks]]")], encoding="utf-8")
    errors = validate_problem(specmod.load_problem(tmp_path / "vector_add"))
    assert errors == [f"{toml}: declares no [[hidden_benchmarks]] (every problem needs per-participant hidden shapes)"]


def test_validate_runs_the_reference_on_the_cpu_sizes(tmp_path: Path) -> None:
    """paged_attention's reference refuses num_heads that are not a multiple of num_kv_heads."""
    shutil.copytree(specmod.PROBLEMS_DIR / "paged_attention", tmp_path / "paged_attention")
    toml = tmp_path / "paged_attention" / "problem.toml"
    text = toml.read_text(encoding="utf-8")
    old = "cpu_sizes = { num_seqs = [3, 9, 2], num_heads = 8, num_kv_heads = 2,"
    assert old in text
    toml.write_text(text.replace(old, old.replace("num_kv_heads = 2", "num_kv_heads = 3")), encoding="utf-8")
    errors = validate_problem(specmod.load_problem(tmp_path / "paged_attention"))
    assert any("'gqa' at cpu_sizes" in e and "the reference fails: ValueError" in e for e in errors), errors
