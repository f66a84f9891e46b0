"""Problem specifications: load and validate problems/<slug>/problem.toml.

Stdlib only: the web side imports this module too (to sync the catalog), and judge hosts read
it before torch is imported. A broken problem raises ProblemError naming the file and line, and
never stops the other problems from loading (see load_all).
"""

from __future__ import annotations

import ast
import hashlib
import json
import operator
import re
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# Shapes drawn per participant from [[hidden_benchmarks]] templates are named HIDDEN_PREFIX + k;
# public case names may not start with it, so a report's hidden rows are known.
from judge.protocol import HIDDEN_PREFIX, MAX_WORKER_GPUS

REPO_ROOT = Path(__file__).resolve().parent.parent
PROBLEMS_DIR = REPO_ROOT / "problems"
REFERENCE_DIR = REPO_ROOT / "reference_kernels"

SCHEMA_VERSION = 1
LANGUAGES = ("triton", "cuda", "pytorch", "cupy")
SOURCE_SUFFIX = {"triton": ".py", "pytorch": ".py", "cupy": ".py", "cuda": ".cu"}
TRACKS = ("memory", "cuda", "triton", "optimization", "inference")
TRACK_TITLES = {
    "memory": "Memory and the roofline",
    "cuda": "CUDA fundamentals",
    "triton": "Triton: blocks, fusion, autotuning",
    "optimization": "Deep optimization",
    "inference": "LLM inference kernels",
}
DIFFICULTIES = ("easy", "medium", "hard")
DTYPES = {
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "int32": 4,
    "int64": 8,
    "uint8": 1,
    "int8": 1,
    "float8_e4m3fn": 1,
}
# Which measured machine ceiling bounds the arithmetic of a problem.
COMPUTE_ROOFS = ("fp32", "bf16_tensor", "fp8_tensor")
# The key of each roof in a host's measured ceilings (judge/harness/parent/ceilings.py).
ROOF_CEILINGS = {"fp32": "fp32_tflops", "bf16_tensor": "bf16_tflops", "fp8_tensor": "fp8_tflops"}
VERDICTS = (
    "accepted",
    "wrong_answer",
    "compile_error",
    "runtime_error",
    "time_limit",
    "memory_limit",
    "rejected",
    "internal_error",
)
SLUG_RE = re.compile(r"^[a-z][a-z0-9_]{1,47}$")
NAME_RE = re.compile(r"^[a-z_][a-z0-9_]{0,31}$")


class ProblemError(ValueError):
    """A problem definition is invalid; the message names the file and, when known, the line."""

    def __init__(self, path: Path, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {message}")


# ---------------------------------------------------------------------------------------------
# Size formulas ("2 * m * n * k"): evaluated over a tiny arithmetic grammar, never eval().

_BINOPS: dict[type[ast.operator], Any] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.Mod: operator.mod,
}
_FUNCS: dict[str, Any] = {"min": min, "max": max, "ceil_div": lambda a, b: -(-a // b)}


def _formula_names(expr: str) -> set[str]:
    tree = ast.parse(expr, mode="eval")
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in _FUNCS}


def evaluate(expr: str | int, sizes: Mapping[str, int]) -> float:
    """Evaluate a size formula such as "2 * m * n * k" for the given sizes."""
    if isinstance(expr, int | float):
        return float(expr)

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in sizes:
                raise ValueError(f"unknown size {node.id!r} in formula {expr!r}")
            return sizes[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCS
            and not node.keywords
        ):
            return _FUNCS[node.func.id](*(walk(a) for a in node.args))
        raise ValueError(f"unsupported syntax in formula {expr!r}")

    return float(walk(ast.parse(expr, mode="eval")))


# ---------------------------------------------------------------------------------------------
# The typed specification.


@dataclass(frozen=True)
class TensorSpec:
    name: str
    dtype: str
    shape: tuple[str | int, ...]

    def concrete_shape(self, sizes: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(int(evaluate(d, sizes)) for d in self.shape)

    def nbytes(self, sizes: Mapping[str, int]) -> int:
        count = 1
        for d in self.concrete_shape(sizes):
            count *= d
        return count * DTYPES[self.dtype]


@dataclass(frozen=True)
class Tolerance:
    """|got - ref| <= atol + rtol * |ref| elementwise, with atol widened by atol_rms * rms(ref);
    and, when set, ||got - ref||_2 / ||ref||_2 <= rel_l2. NaN/Inf never match a finite ref."""

    atol: float
    rtol: float
    atol_rms: float = 0.0
    rel_l2: float | None = None


@dataclass(frozen=True)
class Case:
    name: str
    sizes: dict[str, int]
    gpu_only: bool = False


@dataclass(frozen=True)
class SizeRange:
    """One size of a hidden-shape template: lo, lo + step, ..., hi (a fixed size has lo == hi)."""

    lo: int
    hi: int
    step: int = 1

    def values(self) -> int:
        return (self.hi - self.lo) // self.step + 1


@dataclass(frozen=True)
class ShapeTemplate:
    """A [[hidden_benchmarks]] entry: the range each size is drawn from, per participant, by the
    site (gridstride.lib.variation). `cpu_sizes` are the ranges for CPU judges (small shapes);
    without them a CPU judging gets no shape from this template."""

    name: str
    sizes: dict[str, SizeRange]
    cpu_sizes: dict[str, SizeRange] | None = None


@dataclass(frozen=True)
class Limits:
    compile_seconds: int = 60
    test_seconds: int = 120
    benchmark_seconds: int = 300
    host_memory_mb: int = 16384
    gpu_memory_mb: int = 65536


# Each limit must be a positive whole number, at most this (a compile over ten minutes, or a
# mode's limit over an hour, is a mistake in problem.toml, not a policy).
LIMIT_CEILINGS = {
    "compile_seconds": 600,
    "test_seconds": 3600,
    "benchmark_seconds": 3600,
    "host_memory_mb": 1 << 20,
    "gpu_memory_mb": 1 << 20,
}


def _limits(r: Any, raw: dict[str, Any]) -> Limits:
    for key, value in raw.items():
        if key not in LIMIT_CEILINGS:
            raise r.fail(f"unknown limit {key!r}; limits are {', '.join(LIMIT_CEILINGS)}", key)
        if type(value) is not int or not 0 < value <= LIMIT_CEILINGS[key]:
            raise r.fail(f"{key} must be a whole number from 1 to {LIMIT_CEILINGS[key]}, not {value!r}", key)
    return Limits(**raw)


@dataclass(frozen=True)
class Cost:
    flops: str
    bytes: str
    compute_roof: str = "fp32"

    def flops_for(self, sizes: Mapping[str, int]) -> float:
        return evaluate(self.flops, sizes)

    def bytes_for(self, sizes: Mapping[str, int]) -> float:
        return evaluate(self.bytes, sizes)


@dataclass(frozen=True)
class Solution:
    """One file of the self-test corpus and the verdict the judge must give it."""

    file: str
    language: str
    expect: str
    why: str = ""
    gpu_only: bool = False
    # A cheat the judge may neutralise instead of rejecting: an accepted verdict also meets the
    # expectation when the score is no faster than this honest corpus file's, within timing noise
    # (selftest.timed_like: the hidden work was timed, the replay never hit). Only with expect = "rejected".
    or_timed_like: str = ""
    # The mode this entry is judged in where the self-test's own default differs ("benchmark"
    # for a cheat that only shows in timed calls; CPU hosts self-test in "test" mode).
    mode: str = ""


@dataclass(frozen=True)
class ProblemSpec:
    slug: str
    title: str
    difficulty: str
    track: str
    order: int
    tags: tuple[str, ...]
    languages: tuple[str, ...]
    sizes: tuple[str, ...]
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    tolerance: Tolerance
    forbidden: dict[str, tuple[str, ...]]
    limits: Limits
    cost: Cost
    tests: tuple[Case, ...]
    benchmarks: tuple[Case, ...]
    cpu_benchmarks: tuple[Case, ...]
    solutions: tuple[Solution, ...]
    directory: Path = field(compare=False)
    statement: str = field(compare=False, default="")
    starters: dict[str, str] = field(compare=False, default_factory=dict)
    content_hash: str = ""
    ranking_hash: str = ""
    # Hidden problems are never listed or shown publicly; only assessments and contests use them.
    hidden: bool = False
    hidden_benchmarks: tuple[ShapeTemplate, ...] = ()
    # GPUs one judging holds at once: its jobs go to judges that hold this many (judge_queue).
    gpus: int = 1

    @property
    def reference_dir(self) -> Path:
        return REFERENCE_DIR / self.slug

    def signature(self) -> list[str]:
        """Argument order of solve(): inputs, then outputs, then sizes."""
        return [t.name for t in self.inputs] + [t.name for t in self.outputs] + list(self.sizes)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("directory")
        return data


# ---------------------------------------------------------------------------------------------
# Loading.


def _line_of(text: str, needle: str) -> int | None:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return None


def _hash(*parts: Any) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(json.dumps(part, sort_keys=True, default=str).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _read_tree(directory: Path) -> dict[str, str]:
    """Every text file under a directory, keyed by relative path (for content hashes)."""
    if not directory.is_dir():
        return {}
    return {
        str(p.relative_to(directory)): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(directory.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


class _Reader:
    """Typed access to one TOML table with errors that point at the file and line."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def fail(self, message: str, key: str | None = None) -> ProblemError:
        return ProblemError(self.path, message, _line_of(self.text, key) if key else None)

    def get(self, table: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in table:
            if default is ...:
                raise self.fail(f"missing key {key!r}")
            return default
        value = table[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.fail(f"{key!r} must be {getattr(kind, '__name__', kind)}, got {value!r}", f"{key}")
        return value


def _tensor(r: _Reader, raw: Any, sizes: tuple[str, ...]) -> TensorSpec:
    if not isinstance(raw, dict):
        raise r.fail(f"tensor entries must be tables, got {raw!r}")
    name = r.get(raw, "name", str)
    if not NAME_RE.match(name):
        raise r.fail(f"bad tensor name {name!r}", name)
    dtype = r.get(raw, "dtype", str)
    if dtype not in DTYPES:
        raise r.fail(f"tensor {name!r}: unknown dtype {dtype!r} (one of {sorted(DTYPES)})", dtype)
    shape = tuple(r.get(raw, "shape", list))
    for dim in shape:
        if isinstance(dim, str):
            unknown = _formula_names(dim) - set(sizes)
            if unknown:
                raise r.fail(f"tensor {name!r}: shape uses unknown sizes {sorted(unknown)}", name)
        elif not isinstance(dim, int):
            raise r.fail(f"tensor {name!r}: dimension {dim!r} must be a size name or an int", name)
    return TensorSpec(name=name, dtype=dtype, shape=shape)


def _cases(r: _Reader, data: dict[str, Any], key: str, sizes: tuple[str, ...]) -> tuple[Case, ...]:
    cases = []
    for i, raw in enumerate(data.get(key, [])):
        name = raw.get("name", f"{key}-{i + 1}")
        values = r.get(raw, "sizes", dict)
        if set(values) != set(sizes) or not all(isinstance(v, int) and v > 0 for v in values.values()):
            raise r.fail(f"[[{key}]] {name!r}: sizes must give a positive int for each of {list(sizes)}", f"{name}")
        cases.append(Case(name=name, sizes=dict(values), gpu_only=bool(raw.get("gpu_only", False))))
    names = [c.name for c in cases]
    if len(names) != len(set(names)):
        raise r.fail(f"[[{key}]] case names must be unique")
    return tuple(cases)


def _size_range(r: _Reader, where: str, size: str, raw: Any) -> SizeRange:
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = [raw, raw]
    if (
        not isinstance(raw, list)
        or len(raw) not in (2, 3)
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
    ):
        raise r.fail(f"{where}: size {size!r} must be an int or [lo, hi] or [lo, hi, step]", where)
    lo, hi, step = raw[0], raw[1], raw[2] if len(raw) == 3 else 1
    if lo < 1 or hi < lo or step < 1 or (hi - lo) % step:
        raise r.fail(f"{where}: size {size!r} needs 1 <= lo <= hi and hi - lo a multiple of step", where)
    return SizeRange(lo, hi, step)


def _templates(
    r: _Reader, data: dict[str, Any], sizes: tuple[str, ...], tensors: tuple[TensorSpec, ...]
) -> tuple[ShapeTemplate, ...]:
    templates = []
    for i, raw in enumerate(data.get("hidden_benchmarks", [])):
        name = raw.get("name", f"template-{i + 1}") if isinstance(raw, dict) else f"template-{i + 1}"
        where = f"[[hidden_benchmarks]] {name!r}"
        ranges: list[dict[str, SizeRange] | None] = []
        for key in ("sizes", "cpu_sizes"):
            if key == "cpu_sizes" and key not in raw:
                ranges.append(None)
                continue
            values = r.get(raw, key, dict)
            if set(values) != set(sizes):
                raise r.fail(f"{where}: {key} must give each of {list(sizes)}", name)
            table = {k: _size_range(r, where, k, v) for k, v in values.items()}
            # Every tensor must have a positive shape at both corners of the ranges.
            for corner in ({k: v.lo for k, v in table.items()}, {k: v.hi for k, v in table.items()}):
                for t in tensors:
                    if any(d < 1 for d in t.concrete_shape(corner)):
                        raise r.fail(f"{where}: tensor {t.name!r} is empty at sizes {corner}", name)
            ranges.append(table)
        assert ranges[0] is not None
        templates.append(ShapeTemplate(name=name, sizes=ranges[0], cpu_sizes=ranges[1]))
    return tuple(templates)


def load_problem(directory: Path) -> ProblemSpec:
    """Load and validate one problem directory; raises ProblemError."""
    path = directory / "problem.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProblemError(path, f"cannot read: {exc.strerror}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        line = getattr(exc, "lineno", None) or (int(found.group(1)) if found else None)
        raise ProblemError(path, f"invalid TOML: {exc}", line) from exc

    r = _Reader(path, text)
    if r.get(data, "schema", int) != SCHEMA_VERSION:
        raise r.fail(f"schema must be {SCHEMA_VERSION}", "schema")
    slug = r.get(data, "slug", str)
    if slug != directory.name or not SLUG_RE.match(slug):
        raise r.fail(f"slug {slug!r} must match the directory name {directory.name!r}", "slug")
    difficulty = r.get(data, "difficulty", str)
    if difficulty not in DIFFICULTIES:
        raise r.fail(f"difficulty must be one of {DIFFICULTIES}", "difficulty")
    track = r.get(data, "track", str)
    if track not in TRACKS:
        raise r.fail(f"track must be one of {TRACKS}", "track")
    languages = tuple(r.get(data, "languages", list))
    if not languages or set(languages) - set(LANGUAGES):
        raise r.fail(f"languages must be a non-empty subset of {LANGUAGES}", "languages")

    gpus = r.get(data, "gpus", int, 1)
    if not 1 <= gpus <= MAX_WORKER_GPUS:
        raise r.fail(f"gpus must be a whole number from 1 to {MAX_WORKER_GPUS}, not {gpus}", "gpus")

    interface = r.get(data, "interface", dict)
    sizes = tuple(r.get(interface, "sizes", list))
    inputs = tuple(_tensor(r, t, sizes) for t in r.get(interface, "inputs", list))
    outputs = tuple(_tensor(r, t, sizes) for t in r.get(interface, "outputs", list))
    if not outputs:
        raise r.fail("a problem needs at least one output", "outputs")
    all_names = [t.name for t in inputs + outputs] + list(sizes)
    if len(all_names) != len(set(all_names)):
        raise r.fail("tensor and size names must be unique", "interface")

    tol = r.get(data, "tolerance", dict)
    tolerance = Tolerance(
        atol=float(r.get(tol, "atol", (int, float))),
        rtol=float(r.get(tol, "rtol", (int, float))),
        atol_rms=float(r.get(tol, "atol_rms", (int, float), 0.0)),
        rel_l2=float(tol["rel_l2"]) if "rel_l2" in tol else None,
    )
    forbidden_raw = r.get(data, "forbidden", dict, {})
    forbidden = {lang: tuple(forbidden_raw.get(lang, ())) for lang in LANGUAGES}
    limits = _limits(r, r.get(data, "limits", dict, {}))
    cost_raw = r.get(data, "cost", dict)
    cost = Cost(
        flops=str(r.get(cost_raw, "flops", (str, int))),
        bytes=str(r.get(cost_raw, "bytes", (str, int))),
        compute_roof=r.get(cost_raw, "compute_roof", str, "fp32"),
    )
    if cost.compute_roof not in COMPUTE_ROOFS:
        raise r.fail(f"compute_roof must be one of {COMPUTE_ROOFS}", "compute_roof")
    for formula in (cost.flops, cost.bytes):
        unknown = _formula_names(formula) - set(sizes)
        if unknown:
            raise r.fail(f"cost formula {formula!r} uses unknown sizes {sorted(unknown)}", formula)

    tests = _cases(r, data, "tests", sizes)
    benchmarks = _cases(r, data, "benchmarks", sizes)
    cpu_benchmarks = _cases(r, data, "cpu_benchmarks", sizes)
    if not tests or not benchmarks:
        raise r.fail("a problem needs at least one [[tests]] and one [[benchmarks]] case")
    for case in tests + benchmarks + cpu_benchmarks:
        if case.name.startswith(HIDDEN_PREFIX):
            raise r.fail(f"case {case.name!r}: names starting {HIDDEN_PREFIX!r} are kept for hidden shapes", case.name)
    hidden = r.get(data, "hidden", bool, False)
    hidden_benchmarks = _templates(r, data, sizes, inputs + outputs)

    solutions = []
    for raw in data.get("solutions", []):
        sol = Solution(
            file=r.get(raw, "file", str),
            language=r.get(raw, "language", str),
            expect=r.get(raw, "expect", str),
            why=raw.get("why", ""),
            gpu_only=bool(raw.get("gpu_only", False)),
            or_timed_like=raw.get("or_timed_like", ""),
            mode=raw.get("mode", ""),
        )
        if sol.expect not in VERDICTS or sol.language not in LANGUAGES:
            raise r.fail(f"solution {sol.file!r}: bad expect or language", sol.file)
        if sol.mode not in ("", "test", "benchmark"):
            raise r.fail(f"solution {sol.file!r}: mode is 'test' or 'benchmark'", sol.file)
        if sol.or_timed_like and (sol.expect != "rejected" or not isinstance(sol.or_timed_like, str)):
            raise r.fail(f"solution {sol.file!r}: or_timed_like goes with expect = 'rejected'", sol.file)
        if not (directory / "solutions" / sol.file).is_file():
            raise r.fail(f"solution file solutions/{sol.file} does not exist", sol.file)
        solutions.append(sol)
    accepted = {sol.file for sol in solutions if sol.expect == "accepted"}
    for sol in solutions:
        if sol.or_timed_like and sol.or_timed_like not in accepted:
            raise r.fail(f"solution {sol.file!r}: or_timed_like must name an accepted corpus file", sol.file)

    statement_path = directory / "statement.md"
    statement = statement_path.read_text(encoding="utf-8") if statement_path.is_file() else ""
    if not statement.strip():
        raise ProblemError(statement_path, "statement.md is missing or empty")
    starters = {}
    for lang in languages:
        starter = directory / "starters" / f"{lang}{SOURCE_SUFFIX[lang]}"
        if not starter.is_file():
            raise ProblemError(starter, f"missing starter for {lang}")
        starters[lang] = starter.read_text(encoding="utf-8")
    if not (REFERENCE_DIR / slug / "reference.py").is_file():
        raise ProblemError(REFERENCE_DIR / slug / "reference.py", "missing reference")

    reference_tree = _read_tree(REFERENCE_DIR / slug)
    ranking = _hash(
        [asdict(t) for t in inputs + outputs],
        sizes,
        asdict(tolerance),
        forbidden,
        [asdict(c) for c in benchmarks],
        cost.flops,
        cost.bytes,
        reference_tree.get("reference.py", ""),
        # Only a count other than one: the one-GPU problems keep the rankings they have.
        *([{"gpus": gpus}] if gpus != 1 else []),
    )
    content = _hash(data, statement, starters, _read_tree(directory / "solutions"), reference_tree)
    return ProblemSpec(
        slug=slug,
        title=r.get(data, "title", str),
        difficulty=difficulty,
        track=track,
        order=r.get(data, "order", int, 100),
        tags=tuple(r.get(data, "tags", list, [])),
        languages=languages,
        sizes=sizes,
        inputs=inputs,
        outputs=outputs,
        tolerance=tolerance,
        forbidden=forbidden,
        limits=limits,
        cost=cost,
        tests=tests,
        benchmarks=benchmarks,
        cpu_benchmarks=cpu_benchmarks,
        solutions=tuple(solutions),
        directory=directory,
        statement=statement,
        starters=starters,
        content_hash=content,
        ranking_hash=ranking,
        hidden=hidden,
        hidden_benchmarks=hidden_benchmarks,
        gpus=gpus,
    )


def load_all(root: Path = PROBLEMS_DIR) -> tuple[list[ProblemSpec], list[ProblemError]]:
    """Every problem under root; broken ones are returned as errors and do not stop the rest."""
    problems: list[ProblemSpec] = []
    errors: list[ProblemError] = []
    for directory in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        try:
            problems.append(load_problem(directory))
        except ProblemError as exc:
            errors.append(exc)
        except (TypeError, ValueError, KeyError) as exc:
            errors.append(ProblemError(directory / "problem.toml", str(exc)))
    return problems, errors


def load(slug: str, root: Path = PROBLEMS_DIR) -> ProblemSpec:
    if not SLUG_RE.match(slug) or not (root / slug).is_dir():
        raise ProblemError(root / slug, f"unknown problem {slug!r}")
    return load_problem(root / slug)
