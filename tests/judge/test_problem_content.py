"""The seed problems' content: specs, references, the self-test corpus, starters and experts.

Runs on a CPU-only machine: Triton in its interpreter (TRITON_INTERPRET=1 is set while a
solution is loaded and run), CUDA sources compiled with nvcc but never run.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch

from judge import spec
from judge.harness.common.tensors import poison_value, tolerance_ratio
from tests.judge.nvcc_cache import NVCC_CACHE, compile_outcome, nvcc_version

ROOT = Path(__file__).resolve().parents[2]
# The Triton interpreter converts loaded loop bounds with int(array) (fine with numpy < 2.5).
pytestmark = pytest.mark.filterwarnings("ignore:Conversion of an array with ndim:DeprecationWarning")

SEED_PROBLEMS = ("vector_add", "reduction", "softmax", "matmul", "paged_attention")
SPECS = {p.slug: p for p in spec.load_all()[0]}
# Every problem in problems/ is held to the same content rules as the seed five.
PROBLEMS = tuple(sorted(SPECS))
FLOAT_DTYPES = {"float32", "float16", "bfloat16"}


def load_module(path: Path, name: str) -> ModuleType:
    module_spec = importlib.util.spec_from_file_location(name, path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def reference_module(slug: str) -> ModuleType:
    return load_module(spec.REFERENCE_DIR / slug / "reference.py", f"content_test_reference_{slug}")


def cpu_cases(problem: spec.ProblemSpec) -> list[spec.Case]:
    return [c for c in problem.tests if not c.gpu_only]


# ---------------------------------------------------------------------------------------------
# Specs.


def test_all_five_seed_problems_load_without_errors() -> None:
    specs, errors = spec.load_all()
    assert errors == []
    assert set(SEED_PROBLEMS) <= {s.slug for s in specs}


@pytest.mark.parametrize("slug", PROBLEMS)
def test_every_problem_has_small_odd_cpu_cases_gpu_cases_and_three_benchmarks(slug: str) -> None:
    problem = SPECS[slug]
    assert len(problem.benchmarks) >= 3
    assert problem.cpu_benchmarks
    assert any(c.gpu_only for c in problem.tests)
    small = cpu_cases(problem)
    assert len(small) >= 5
    # Some CPU case has a size of 1 and some has an odd size that is not a power of two.
    values = [v for c in small for v in c.sizes.values()]
    assert 1 in values
    assert any(v % 2 == 1 and v > 2 for v in values)


@pytest.mark.parametrize("slug", PROBLEMS)
def test_the_corpus_covers_every_language_and_the_basic_failures(slug: str) -> None:
    problem = SPECS[slug]
    have = {(s.language, s.expect) for s in problem.solutions}
    for language in ("triton", "pytorch", "cuda", "cupy"):
        assert (language, "accepted") in have, language
    assert ("cuda", "compile_error") in have
    assert any(s.expect == "compile_error" and s.language != "cuda" for s in problem.solutions)
    assert sum(s.expect == "wrong_answer" for s in problem.solutions) >= 2
    for sol in problem.solutions:
        if sol.language in ("cuda", "cupy") and sol.expect == "accepted":
            assert sol.gpu_only, f"{sol.file}: CUDA/CuPy runs only on a GPU host"
        if sol.expect == "compile_error":
            assert not sol.gpu_only, f"{sol.file}: compile errors are found on CPU hosts too"


@pytest.mark.parametrize("slug", PROBLEMS)
def test_the_corpus_has_every_languages_starter_completed_the_way_its_todos_say(slug: str) -> None:
    """What a learner writes first, in each language: accepted on the GPU, and the Triton and
    PyTorch ones on a CPU host too (tests/judge/test_problem_verdicts.py judges them on the CPU,
    as the selftest does; the CUDA and CuPy ones are compiled below)."""
    problem = SPECS[slug]
    for language in problem.languages:
        name = f"{language}_starter_completed{spec.SOURCE_SUFFIX[language]}"
        entries = [s for s in problem.solutions if s.file == name]
        gpu_only = language in ("cuda", "cupy")
        assert [(s.language, s.expect, s.gpu_only) for s in entries] == [(language, "accepted", gpu_only)], name


@pytest.mark.parametrize("slug", PROBLEMS)
def test_statement_has_the_interface_benchmarks_and_hints_sections(slug: str) -> None:
    text = SPECS[slug].statement
    for heading in ("## Interface", "## Benchmarks", "## Hints"):
        assert heading in text
    assert "solve(" in text


def written_forms(value: float) -> set[str]:
    """How a statement may write a tolerance: 0.016 or 1.6e-2."""
    mantissa, exponent = f"{value:e}".split("e")
    return {f"{value:g}", f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"}


@pytest.mark.parametrize("slug", PROBLEMS)
def test_statement_quotes_the_tolerance_the_judge_applies(slug: str) -> None:
    """A statement that promises another bound than problem.toml misleads every contestant
    (paged_attention's said 0.01 rms after the calibration moved it to 0.02)."""
    tolerance = SPECS[slug].tolerance
    text = SPECS[slug].statement
    quoted = [tolerance.rtol, tolerance.atol_rms, tolerance.rel_l2 or 0.0]
    quoted += [tolerance.atol] if tolerance.atol >= 1e-9 else []  # below: only absorbs flushed denormals
    for value in quoted:
        if value:
            assert any(form in text for form in written_forms(value)), (slug, value, written_forms(value))
    if tolerance.atol_rms:
        assert f"{tolerance.atol_rms:g}\\,\\mathrm{{rms}}" in text


# ---------------------------------------------------------------------------------------------
# References.


@pytest.mark.parametrize("slug", PROBLEMS)
def test_generate_inputs_is_deterministic_seeded_and_never_all_zeros(slug: str) -> None:
    problem = SPECS[slug]
    ref = reference_module(slug)
    for case in cpu_cases(problem)[:4]:
        first = ref.generate_inputs(seed=5, device="cpu", **case.sizes)
        again = ref.generate_inputs(seed=5, device="cpu", **case.sizes)
        other = ref.generate_inputs(seed=6, device="cpu", **case.sizes)
        for t in problem.inputs:
            got = first[t.name]
            assert tuple(got.shape) == t.concrete_shape(case.sizes), (case.name, t.name)
            assert got.dtype == getattr(torch, t.dtype), (case.name, t.name)
            assert got.is_contiguous()
            assert torch.equal(got, again[t.name]), f"{case.name}: {t.name} differs for the same seed"
            if t.dtype in FLOAT_DTYPES:
                assert bool((got != 0).any()), f"{case.name}: {t.name} is all zeros"
                assert bool(torch.isfinite(got.float()).all())
                if got.numel() > 8:
                    assert not torch.equal(got, other[t.name]), f"{case.name}: {t.name} ignores the seed"
                    # 16-bit floats have only a few thousand values in the range drawn; a reference
                    # names in FEW_VALUES the inputs it draws from few values on purpose (w4a16_gemm:
                    # 4-bit scales, so that every dequantized weight is exact in bf16).
                    wanted = got.numel() // 2 if t.dtype == "float32" else min(got.numel() // 4, 256)
                    if t.name in getattr(ref, "FEW_VALUES", ()):
                        wanted = min(wanted, 16)
                    assert got.float().unique().numel() > wanted, f"{case.name}: {t.name} lacks entropy"


@pytest.mark.parametrize("slug", PROBLEMS)
def test_reference_outputs_are_float64_with_the_interface_shapes(slug: str) -> None:
    """Float outputs in float64; integer outputs (counts, indices) exact in their own dtype."""
    problem = SPECS[slug]
    ref = reference_module(slug)
    case = cpu_cases(problem)[2]
    outputs = ref.reference(**ref.generate_inputs(seed=1, device="cpu", **case.sizes), **case.sizes)
    for t in problem.outputs:
        want = torch.float64 if t.dtype in FLOAT_DTYPES else getattr(torch, t.dtype)
        assert outputs[t.name].dtype == want
        assert tuple(outputs[t.name].shape) == t.concrete_shape(case.sizes)
        assert bool(torch.isfinite(outputs[t.name]).all())


def test_paged_attention_block_tables_are_valid_distinct_pages_and_lengths_honour_the_bytes_floor() -> None:
    problem = SPECS["paged_attention"]
    ref = reference_module("paged_attention")
    for case in problem.tests:
        sizes = case.sizes
        cache_elements = sizes["num_seqs"] * sizes["max_blocks_per_seq"] * sizes["block_size"] * sizes["head_dim"]
        if cache_elements * sizes["num_kv_heads"] > 4_000_000:
            continue  # drawing a large cache on the CPU is slow; the lengths logic is the same
        inputs = ref.generate_inputs(seed=3, device="cpu", **sizes)
        table, lens = inputs["block_table"], inputs["seq_lens"]
        num_blocks = inputs["k_cache"].shape[0]
        assert int(table.min()) >= 0 and int(table.max()) < num_blocks
        assert table.unique().numel() == table.numel(), "pages must not be shared between slots"
        max_len = sizes["max_blocks_per_seq"] * sizes["block_size"]
        assert int(lens.min()) >= 1 and int(lens.max()) <= max_len
        if sizes["num_seqs"] >= 2:
            assert int(lens.min()) == 1 and int(lens.max()) == max_len
        # The cost model's bytes must be a floor of what any correct kernel has to move.
        kv_bytes_needed = int(lens.sum()) * sizes["num_kv_heads"] * sizes["head_dim"] * 4
        floor = problem.cost.bytes_for(sizes) - 4 * sizes["num_seqs"] * sizes["num_heads"] * sizes["head_dim"]
        assert floor - 4 * sizes["num_seqs"] <= kv_bytes_needed


def test_reduction_inputs_keep_the_sum_well_conditioned() -> None:
    ref = reference_module("reduction")
    for seed in range(20):
        x = ref.generate_inputs(seed=seed, device="cpu", n=10_000)["x"].double()
        assert float(x.abs().sum() / x.sum().abs()) < 4.0


def test_moe_routing_integers_are_compared_exactly_on_every_shape() -> None:
    """One tolerance rule holds all five outputs: the integers (at most tokens * top_k) are exact
    only while rtol times the largest of them stays below 1, on public and hidden shapes alike."""
    from judge import hidden_shapes

    problem = SPECS["moe_routing"]
    tol = problem.tolerance
    assert tol.atol == 0.0 and tol.atol_rms == 0.0 and tol.rel_l2 is None
    shapes = [c.sizes for c in problem.tests + problem.benchmarks + problem.cpu_benchmarks]
    for template in problem.hidden_benchmarks:
        for ranges in (template.sizes, template.cpu_sizes or {}):
            shapes += list(hidden_shapes.corners(ranges)) if ranges else []
    for sizes in shapes:
        largest = max(sizes["tokens"] * sizes["top_k"], sizes["tokens"], sizes["experts"])
        assert tol.rtol * largest < 1.0, sizes


def test_moe_routing_logits_are_exact_grid_values_with_ties_only_where_planted() -> None:
    """Distinct logits are at least 2^-12 apart (no selection sits within rounding), equal ones are
    bit-identical, and ties are present at the top of rows and at the selection boundary."""
    ref = reference_module("moe_routing")
    x = ref.generate_inputs(seed=7, device="cpu", tokens=3000, experts=64, top_k=4)["logits"].double()
    assert bool(((x / ref.STEP) == (x / ref.STEP).round()).all()) and float(x.abs().max()) < 32
    values = torch.sort(x, dim=1, descending=True).values
    gaps = values[:, :-1] - values[:, 1:]
    assert float(gaps[gaps > 0].min()) >= ref.STEP
    top_ties = float((gaps[:, 0] == 0).double().mean())
    edge_ties = float(((values[:, 3] == values[:, 4]) & (gaps[:, 0] > 0)).double().mean())
    assert top_ties > 0.25 and edge_ties > 0.2


def test_top_p_rows_add_up_exactly_and_every_uniform_keeps_a_quarter_unit_from_each_boundary() -> None:
    """Every partial sum is exact in fp32 (multiples of 2^-20, rows of exactly 1), and u * S lies
    at least a quarter unit from every running sum, so no sample sits within rounding of a
    boundary; the planted kinds are all present (top_p = 1, top_p equal to a cumulative sum)."""
    ref = reference_module("top_p_sampling")
    inputs = ref.generate_inputs(seed=9, device="cpu", batch=200, vocab=3001)
    units = inputs["probs"].double() * ref.UNITS
    assert bool((units == units.round()).all()) and bool((units.sum(1) == ref.UNITS).all())
    units = units.long()
    members, mass = ref.nucleus(units, inputs["top_p"].double())
    running = torch.cumsum(units * members, dim=1).double()
    threshold = inputs["uniforms"].double() * mass.double()
    assert float((running - threshold[:, None]).abs().min()) >= 0.25
    _, csum = ref._sorted_cumsum(units)
    p_units = inputs["top_p"].double() * ref.UNITS
    assert bool((inputs["top_p"] == 1.0).any())
    assert int((csum.double() == p_units[:, None]).any(1).sum()) > 20


def test_spec_decode_tests_keep_a_unit_from_their_threshold_except_the_planted_ties() -> None:
    """Rows are exact units adding up to 1; every test up to the first rejection has u * q at least
    one unit from p, or exactly p (a planted tie, only at the rejection, rejected); batch // 4
    sequences accept every draft token; w * Z lies a quarter unit or more from every running sum."""
    ref = reference_module("spec_decode_verify")
    batch, k = 40, 4
    inputs = ref.generate_inputs(seed=4, device="cpu", batch=batch, num_draft=k, vocab=3001)
    units = {name: inputs[name].double() * ref.UNITS for name in ("draft_probs", "target_probs")}
    for u in units.values():
        assert bool((u == u.round()).all()) and bool((u.sum(-1) == ref.UNITS).all())
    n = ref.reference(**inputs, batch=batch, num_draft=k, vocab=3001)["num_accepted"].long()
    assert int((n == k).sum()) == batch // 4
    ids = inputs["draft_token_ids"].long().unsqueeze(2)
    q = units["draft_probs"].gather(2, ids).squeeze(2)
    p = units["target_probs"][:, :k].gather(2, ids).squeeze(2)
    gap = inputs["accept_uniforms"].double() * q - p
    tested = torch.arange(k)[None, :] <= n[:, None]
    ties = tested & (gap == 0)
    assert bool((gap[tested & ~ties].abs() >= 1).all())
    assert bool((torch.arange(k)[None, :] == n[:, None])[ties].all()) and int(ties.sum()) >= 3
    weights = ref._next_token_weights(units["target_probs"].long(), units["draft_probs"].long(), n)
    threshold = inputs["sample_uniforms"].double() * weights.sum(1).double()
    assert float((weights.cumsum(1).double() - threshold[:, None]).abs().min()) >= 0.25


# ---------------------------------------------------------------------------------------------
# Python solutions (accepted corpus entries and the expert) on the CPU cases.


def accepted_python_solutions() -> Iterator[Any]:
    for slug in PROBLEMS:
        problem = SPECS[slug]
        for sol in problem.solutions:
            # The starters' completions are judged whole on the CPU by test_problem_verdicts.py.
            if "_starter_completed." in sol.file:
                continue
            if sol.expect == "accepted" and sol.language in ("triton", "pytorch") and not sol.gpu_only:
                yield pytest.param(slug, problem.directory / "solutions" / sol.file, id=f"{slug}/{sol.file}")
        expert = problem.reference_dir / "expert_triton.py"
        if expert.is_file():
            yield pytest.param(slug, expert, id=f"{slug}/expert_triton.py")


@pytest.fixture
def interpreted_triton(monkeypatch: pytest.MonkeyPatch) -> None:
    # Read when a kernel is decorated (the solution's import), so setting it here is enough even
    # if triton was imported earlier in the session.
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    from judge.harness.child.triton_interpreter import install

    install()  # as the judge's child does on a CPU host (process-wide, idempotent)


@pytest.mark.usefixtures("interpreted_triton")
@pytest.mark.parametrize(("slug", "path"), list(accepted_python_solutions()))
def test_accepted_python_solution_matches_the_reference_on_every_cpu_case(slug: str, path: Path) -> None:
    problem = SPECS[slug]
    ref = reference_module(slug)
    module = load_module(path, f"content_test_{slug}_{path.stem}")
    for case in cpu_cases(problem):
        inputs = ref.generate_inputs(seed=101, device="cpu", **case.sizes)
        kept = {name: t.clone() for name, t in inputs.items()}
        expected = ref.reference(**inputs, **case.sizes)
        outputs = {
            t.name: torch.full(t.concrete_shape(case.sizes), poison_value(t.dtype), dtype=getattr(torch, t.dtype))
            for t in problem.outputs
        }
        args = [inputs[t.name] for t in problem.inputs] + [outputs[t.name] for t in problem.outputs]
        module.solve(*args, *[case.sizes[s] for s in problem.sizes])
        for name, out in outputs.items():
            ratio = tolerance_ratio(out, expected[name], problem.tolerance)
            assert ratio <= 1.0, f"{case.name}: {name} uses {ratio:.3g}x the tolerance"
        for name, t in kept.items():
            assert torch.equal(inputs[name], t), f"{case.name}: input {name} was modified"


def compile_error_python_files() -> Iterator[Any]:
    for slug in PROBLEMS:
        for sol in SPECS[slug].solutions:
            if sol.expect == "compile_error" and sol.language != "cuda":
                yield pytest.param(SPECS[slug].directory / "solutions" / sol.file, id=f"{slug}/{sol.file}")


@pytest.mark.parametrize("path", list(compile_error_python_files()))
def test_python_compile_error_entries_really_do_not_parse(path: Path) -> None:
    with pytest.raises(SyntaxError):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")


# ---------------------------------------------------------------------------------------------
# Forbidden strings: the judge scans code with comments removed, case-insensitively.


def strip_comments(source: str, language: str) -> str:
    if language == "cuda":
        return re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
    lines = source.splitlines(keepends=True)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col] + "\n"
    return "".join(lines)


def forbidden_hits(problem: spec.ProblemSpec, path: Path, language: str) -> list[str]:
    code = strip_comments(path.read_text(encoding="utf-8"), language).lower()
    return [needle for needle in problem.forbidden.get(language, ()) if needle.lower() in code]


def sources_that_must_pass_the_scan() -> Iterator[Any]:
    for slug in PROBLEMS:
        problem = SPECS[slug]
        for language in problem.languages:
            starter = problem.directory / "starters" / f"{language}{spec.SOURCE_SUFFIX[language]}"
            yield pytest.param(slug, starter, language, id=f"{slug}/starters/{starter.name}")
        for sol in problem.solutions:
            hidden = "hidden" in sol.file or "dlopen" in sol.file
            if (sol.expect != "rejected" or hidden) and sol.expect != "compile_error":
                yield pytest.param(
                    slug, problem.directory / "solutions" / sol.file, sol.language, id=f"{slug}/{sol.file}"
                )
        for name, language in (("expert_triton.py", "triton"), ("expert_cuda.cu", "cuda")):
            yield pytest.param(slug, problem.reference_dir / name, language, id=f"{slug}/{name}")


@pytest.mark.parametrize(("slug", "path", "language"), list(sources_that_must_pass_the_scan()))
def test_source_has_no_forbidden_string(slug: str, path: Path, language: str) -> None:
    assert forbidden_hits(SPECS[slug], path, language) == []


@pytest.mark.parametrize(
    ("slug", "file", "language"),
    [
        ("matmul", "triton_calls_torch_matmul.py", "triton"),
        ("reduction", "cuda_calls_vendor_library.cu", "cuda"),
    ],
)
def test_plain_library_cheats_are_caught_by_the_source_scan(slug: str, file: str, language: str) -> None:
    assert forbidden_hits(SPECS[slug], SPECS[slug].directory / "solutions" / file, language)


# ---------------------------------------------------------------------------------------------
# CUDA sources: compile with the judge's command line (nothing runs here).


def cuda_files() -> list[tuple[str, Path, bool]]:
    """(problem, file, should compile). Entries the source scan rejects are left out: they never
    reach the compiler (and may need headers this machine lacks)."""
    files = []
    for slug in PROBLEMS:
        problem = SPECS[slug]
        for sol in problem.solutions:
            path = problem.directory / "solutions" / sol.file
            if sol.language == "cuda" and not forbidden_hits(problem, path, "cuda"):
                files.append((slug, problem.directory / "solutions" / sol.file, sol.expect != "compile_error"))
        files.append((slug, problem.reference_dir / "expert_cuda.cu", True))
        files.append((slug, problem.directory / "starters" / "cuda.cu", True))
    return files


@pytest.fixture(scope="module")
def nvcc_results(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[int, str]]:
    if nvcc_version() is None:
        pytest.skip("nvcc is not installed")
    out_dir = tmp_path_factory.mktemp("nvcc")

    def build(path: Path) -> tuple[Path, tuple[int, str]]:
        return path, compile_outcome(path, out_dir)

    paths = [path for _, path, _ in cuda_files()]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(build, paths))


@pytest.mark.parametrize(
    ("path", "should_compile"),
    [pytest.param(path, ok, id=f"{slug}/{path.parent.name}/{path.name}") for slug, path, ok in cuda_files()],
)
def test_cuda_source_compiles_exactly_when_expected(
    nvcc_results: dict[Path, tuple[int, str]], path: Path, should_compile: bool
) -> None:
    code, log = nvcc_results[path]
    if should_compile:
        assert code == 0, log
    else:
        assert code != 0, "expected a compile error"


@pytest.mark.parametrize(("slug", "path", "ok"), [pytest.param(*f, id=f"{f[0]}/{f[1].name}") for f in cuda_files()])
def test_cuda_solve_takes_one_parameter_per_signature_entry(slug: str, path: Path, ok: bool) -> None:
    if not ok:
        return
    code = strip_comments(path.read_text(encoding="utf-8"), "cuda")
    match = re.search(r'extern\s+"C"\s+void\s+solve\s*\(([^)]*)\)', code)
    assert match, 'no extern "C" void solve(...)'
    params = [p for p in match.group(1).split(",") if p.strip()]
    assert len(params) == len(SPECS[slug].signature())


def test_this_file_runs_with_the_judge_environment() -> None:
    # The judge venv pins Python 3.11 and numpy < 2.5 for the Triton interpreter.
    assert sys.version_info >= (3, 11)


def python_sources_with_solve() -> Iterator[Any]:
    for slug in PROBLEMS:
        problem = SPECS[slug]
        for language in ("triton", "pytorch", "cupy"):
            yield pytest.param(
                slug, problem.directory / "starters" / f"{language}.py", id=f"{slug}/starters/{language}.py"
            )
        for sol in problem.solutions:
            if sol.language != "cuda" and sol.expect != "compile_error":
                yield pytest.param(slug, problem.directory / "solutions" / sol.file, id=f"{slug}/{sol.file}")
        yield pytest.param(slug, problem.reference_dir / "expert_triton.py", id=f"{slug}/expert_triton.py")


@pytest.mark.parametrize(("slug", "path"), list(python_sources_with_solve()))
def test_python_solve_takes_one_parameter_per_signature_entry(slug: str, path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    solves = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve"]
    assert len(solves) == 1, "exactly one top-level def solve(...)"
    args = solves[0].args
    assert not args.vararg and not args.kwarg
    assert [a.arg for a in args.args] == SPECS[slug].signature()


def raw_kernels() -> Iterator[Any]:
    """(problem, file, index, kernel source, kernel name) of every CuPy RawKernel in the content."""
    for slug in PROBLEMS:
        problem = SPECS[slug]
        paths = [problem.directory / "starters" / "cupy.py"]
        paths += [problem.directory / "solutions" / s.file for s in problem.solutions if s.language == "cupy"]
        for path in paths:
            tree = ast.parse(path.read_text(encoding="utf-8"))
            calls = [
                n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "RawKernel"
            ]
            for i, call in enumerate(calls):
                source, name = (ast.literal_eval(a) for a in call.args[:2])
                yield pytest.param(path, source, name, id=f"{slug}/{path.parent.name}/{path.name}#{i}")


# CuPy compiles a RawKernel with NVRTC, which includes no host headers: the macros of math.h,
# float.h and limits.h that nvcc's automatic includes provide are undefined there: a kernel using
# INFINITY compiles under nvcc (the check below) and fails under NVRTC on the GPU host. The
# machines without a GPU have no NVRTC, so the names are checked instead.
NVRTC_UNDEFINED = ("INFINITY", "NAN", "HUGE_VALF", "HUGE_VAL", "FLT_MAX", "FLT_MIN", "FLT_EPSILON", "DBL_MAX",
                   "M_PI", "M_E", "M_LN2", "M_SQRT2", "INT_MAX", "INT_MIN", "UINT_MAX")  # fmt: skip


@pytest.mark.parametrize(("path", "source", "name"), list(raw_kernels()))
def test_cupy_raw_kernel_uses_no_host_header_name_that_nvrtc_lacks(path: Path, source: str, name: str) -> None:
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S)
    defined = set(re.findall(r"#\s*define\s+(\w+)", code))
    used = {m for m in NVRTC_UNDEFINED if re.search(rf"\b{m}\b", code)} - defined
    assert not used, f"{name} uses {sorted(used)}, which NVRTC (CuPy's compiler) does not define"
    assert not re.search(r"#\s*include\s*<(math|float|limits|stdio|stdlib|cmath|cfloat|climits)\.?h?>", code)


@pytest.mark.parametrize(("path", "source", "name"), list(raw_kernels()))
def test_cupy_raw_kernel_compiles_for_sm90_and_is_not_named_like_a_library_kernel(
    path: Path, source: str, name: str, tmp_path: Path
) -> None:
    # The profiler check treats kernels named cupy_* as CuPy's own library kernels.
    assert not name.lower().startswith("cupy_")
    assert re.search(rf'extern\s+"C"\s+__global__\s+void\s+{re.escape(name)}\s*\(', source)
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed")
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    key = hashlib.sha256(json.dumps([version, "rawkernel", source]).encode()).hexdigest()
    cached = NVCC_CACHE / f"{key}.json"
    if cached.is_file():
        code, log = json.loads(cached.read_text())
    else:
        kernel = tmp_path / "kernel.cu"
        kernel.write_text(source, encoding="utf-8")
        cmd = [nvcc, "-arch=sm_90", "-c", "-o", str(tmp_path / "kernel.o"), str(kernel)]
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        code, log = result.returncode, result.stderr[-4000:]
        NVCC_CACHE.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps([code, log]))
    assert code == 0, log
