"""`python -m judge ...`: judge a file, validate problems, self-test the corpora, run a worker.

run --problem SLUG [--language LANG] FILE [--mode test|benchmark|profile] [--json]
    exit 0 only when the verdict is accepted; 3 when this host cannot sandbox submissions
validate            every problem, without a GPU; file:line for each error; non-zero on errors
selftest [SLUG..] [--cpu-only] [--mode M]
                    every solutions/ corpus entry through judge_job; non-zero on a surprise
worker [...]        the Celery judge worker (judge.worker)
compose-gpus [--layout 1,1,2]
                    a compose file with one judge worker per GPU of this host (judge.gpu_compose)
ceilings [--fresh]  the measured machine ceilings of this GPU
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import logging
import math
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge import hidden_shapes, ladder
from judge import spec as specmod
from judge.protocol import JudgeJob, Report

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_SANDBOX = 3  # this host cannot sandbox submissions (GRIDSTRIDE_JUDGE_SANDBOX=off: development only)


# ---------------------------------------------------------------------------------------------
# Formatting.


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells: list[list[str]] = [[str(h) for h in headers]] + [
        [("" if c is None else str(c)) for c in row] for row in rows
    ]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _num(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return f"{value:.{digits}g}"


def format_report(report: Report) -> str:
    out = [
        f"{report.problem} · {report.language} · {report.mode}: {report.verdict.upper().replace('_', ' ')}",
        report.message,
    ]
    if report.compile_log:
        out += ["", "Compiler output:", report.compile_log]
    if report.cases:
        rows: list[list[Any]] = []
        for c in report.cases:
            sizes = " ".join(f"{k}={v}" for k, v in c.sizes.items())
            rows.append(
                [
                    c.name,
                    sizes,
                    "pass" if c.passed else "FAIL",
                    _num(c.max_abs_err),
                    _num(c.max_rel_err),
                    _num(c.rel_l2),
                ]
            )
        out += ["", text_table(["case", "sizes", "result", "max abs err", "max rel err", "rel L2"], rows)]
        for c in report.cases:
            if not c.passed:
                out.append(f"  {c.name}: {c.message}")
                for m in c.mismatches:
                    out.append(
                        f"    at {m.index}: expected {_num(m.expected, 8)}, got {_num(m.got, 8)} "
                        f"(abs {_num(m.abs_err)}, rel {_num(m.rel_err)})"
                    )
    if report.benchmarks:
        rows = []
        for b in report.benchmarks:
            half = max(b.median_us - b.ci_low_us, b.ci_high_us - b.median_us)
            rows.append(
                [
                    b.name,
                    b.n,
                    f"{b.median_us:.3f}",
                    f"±{half / b.median_us * 100:.2f}%" if b.median_us else "-",
                    f"{b.min_us:.3f}",
                    f"{b.p10_us:.3f}",
                    f"{b.p90_us:.3f}",
                    f"{b.gbps:.1f}",
                    f"{b.tflops:.3f}",
                    f"{b.sol_pct:.1f}%" if b.floor_us else "-",
                    f"{b.speedup_vs_reference:.2f}x" if b.speedup_vs_reference else "-",
                ]
            )
        out += [
            "",
            text_table(
                [
                    "shape",
                    "n",
                    "median us",
                    "95% CI",
                    "min us",
                    "p10 us",
                    "p90 us",
                    "GB/s",
                    "TFLOP/s",
                    "SOL",
                    "vs baseline",
                ],
                rows,
            ),
        ]
        if report.score_us is not None:
            sol = f", {report.sol_pct:.1f}% of speed of light" if report.sol_pct else ""
            out.append(f"score: {report.score_us:.3f} us (geometric mean over shapes){sol}")
    if report.kernels:
        kernel_rows: list[list[Any]] = [
            [
                k.name[:70],
                k.calls,
                _num(k.duration_us),
                _num(k.dram_sol_pct),
                _num(k.compute_sol_pct),
                _num(k.achieved_occupancy_pct),
                _num(k.registers),
                _num(k.shared_bytes),
            ]
            for k in report.kernels[:12]
        ]
        out += [
            "",
            text_table(["kernel", "calls", "us", "DRAM %", "SM %", "occupancy %", "regs", "smem B"], kernel_rows),
        ]
    for label, text in (("stdout", report.stdout), ("stderr", report.stderr)):
        if text.strip():
            out += ["", f"Your program's {label}:", text.rstrip()]
    system = report.system
    gpu = system.get("gpu") or "CPU (no GPU)"
    parts = [gpu]
    for key, label in (
        ("driver", "driver"),
        ("sm_clock_mhz", "SM MHz"),
        ("torch", "torch"),
        ("triton", "triton"),
        ("cupy", "cupy"),
        ("python", "python"),
    ):
        if system.get(key):
            parts.append(f"{label} {system[key]}")
    out += ["", "system: " + ", ".join(parts)]
    if report.ceilings:
        ceil = report.ceilings
        out.append(
            f"ceilings: {ceil.get('dram_gbps', 0):.0f} GB/s, {ceil.get('bf16_tflops', 0):.0f} TFLOP/s bf16, "
            f"{ceil.get('fp32_tflops', 0):.1f} TFLOP/s fp32, {ceil.get('fp8_tflops', 0):.0f} TFLOP/s fp8"
        )
    out.append(f"elapsed: {report.elapsed_s:.1f} s")
    return "\n".join(line for line in out if line is not None)


# ---------------------------------------------------------------------------------------------
# run


def guess_language(path: Path, source: str) -> str:
    if path.suffix == ".cu":
        return "cuda"
    if "import triton" in source or "from triton" in source:
        return "triton"
    if "import cupy" in source or "from cupy" in source:
        return "cupy"
    return "pytorch"


def cli_config(cpu: bool = False, warm_pool: bool = True) -> Any:
    from judge.harness.parent.config import JudgeConfig, var_dir

    overrides: dict[str, Any] = {"ceilings_cache": var_dir() / "ceilings.json", "warm_pool": warm_pool}
    if cpu:
        overrides["device"] = "cpu"
    return JudgeConfig.from_env(**overrides)


def sandbox_refusal(config: Any) -> str | None:
    """Why this host judges nothing (a sandbox layer is missing), printed for the user, or None."""
    from judge.harness.parent import launch

    refused = launch.refusal(config.sandbox)
    if refused:
        print(refused, file=sys.stderr)
    return refused


def cmd_run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    language = args.language or guess_language(path, source)
    # One job: a warm pool would only start a process nobody uses.
    config = cli_config(args.cpu, warm_pool=False)
    if sandbox_refusal(config):
        return EXIT_NO_SANDBOX
    from judge.harness import judge_job

    job = JudgeJob(
        submission_id=f"cli-{int(time.time())}",
        attempt=1,
        problem=args.problem,
        language=language,
        source=source,
        mode=args.mode,
        seed=args.seed,
    )

    def progress(p: Any) -> None:
        if not args.json and sys.stderr.isatty():
            counter = f" {p.done + 1}/{p.total}" if p.total and p.stage != "done" else ""
            print(
                f"\r\033[K{p.stage}{counter} {p.detail}"[:120],
                end="" if p.stage != "done" else "\n",
                file=sys.stderr,
                flush=True,
            )

    report = judge_job(job, on_progress=progress, config=config)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(format_report(report))
    return EXIT_OK if report.verdict == "accepted" else EXIT_FAILED


# ---------------------------------------------------------------------------------------------
# validate


def _where(exc: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    line = frames[-1].lineno if frames else None
    return f"{path}:{line}" if line else str(path)


def _def_line(fn: Any, path: Path) -> str:
    try:
        return f"{path}:{inspect.getsourcelines(fn)[1]}"
    except (OSError, TypeError):
        return str(path)


def validate_problem(spec: specmod.ProblemSpec, reference_root: Path | None = None) -> list[str]:
    """Problems of one loaded problem, each as 'file:line: message' (empty when fine)."""
    import torch

    from judge.harness.common.tensors import DTYPES, checksum, is_float

    errors: list[str] = []
    ref_path = (reference_root or specmod.REFERENCE_DIR) / spec.slug / "reference.py"
    try:
        loader = importlib.util.spec_from_file_location(f"validate_reference_{spec.slug}", ref_path)
        assert loader is not None and loader.loader is not None
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
    except Exception as exc:
        return [f"{_where(exc, ref_path)}: reference.py does not import: {type(exc).__name__}: {exc}"]
    for name in ("generate_inputs", "reference"):
        if not callable(getattr(module, name, None)):
            errors.append(f"{ref_path}: reference.py must define {name}()")
    if errors:
        return errors
    cpu_cases = [c for c in spec.tests if not c.gpu_only]
    if not cpu_cases:
        return [f"{spec.directory / 'problem.toml'}: no [[tests]] case runs on a CPU host (all are gpu_only)"]

    def volume(case: specmod.Case) -> int:
        return sum(t.nbytes(case.sizes) for t in spec.inputs + spec.outputs)

    case = min(cpu_cases, key=volume)
    sizes = case.sizes
    # Determinism and seed dependence are checked on the largest small case (a one-element
    # tensor can repeat by chance).
    probe = max((c for c in cpu_cases if volume(c) <= 16 << 20), key=volume, default=case)
    try:
        inputs = module.generate_inputs(seed=1, device="cpu", **sizes)
        probe_a = module.generate_inputs(seed=1, device="cpu", **probe.sizes)
        probe_b = module.generate_inputs(seed=1, device="cpu", **probe.sizes)
        probe_c = module.generate_inputs(seed=2, device="cpu", **probe.sizes)
    except Exception as exc:
        return [f"{_where(exc, ref_path)}: generate_inputs failed on case {case.name!r}: {type(exc).__name__}: {exc}"]
    where_gen = _def_line(module.generate_inputs, ref_path)
    for t in spec.inputs:
        got = inputs.get(t.name) if isinstance(inputs, dict) else None
        if got is None:
            errors.append(f"{where_gen}: generate_inputs gives no {t.name!r}")
            continue
        want = t.concrete_shape(sizes)
        if tuple(got.shape) != want or got.dtype != DTYPES[t.dtype] or not got.is_contiguous():
            errors.append(
                f"{where_gen}: generate_inputs gives {t.name} {tuple(got.shape)} {got.dtype}, "
                f"the interface says {want} {t.dtype} (contiguous)"
            )
            continue
        if checksum(probe_a[t.name]) != checksum(probe_b[t.name]):
            errors.append(
                f"{where_gen}: generate_inputs is not deterministic for {t.name} (same seed, different values)"
            )
        if probe_a[t.name].numel() > 8 and checksum(probe_a[t.name]) == checksum(probe_c[t.name]):
            errors.append(f"{where_gen}: generate_inputs ignores the seed for {t.name}")
        if is_float(t.dtype) and got.numel() > 1 and not bool(torch.any(got != 0)):
            errors.append(f"{where_gen}: generate_inputs gives all zeros for {t.name}")
    if errors:
        return errors
    where_ref = _def_line(module.reference, ref_path)
    try:
        outputs = module.reference(**inputs, **sizes)
    except Exception as exc:
        return [f"{_where(exc, ref_path)}: reference failed on case {case.name!r}: {type(exc).__name__}: {exc}"]
    errors += _check_outputs("reference", outputs, spec, sizes, where_ref, reference=True)
    baseline = getattr(module, "baseline", None)
    if baseline is not None:
        try:
            base_out = baseline(**inputs, **sizes)
        except Exception as exc:
            errors.append(
                f"{_where(exc, ref_path)}: baseline failed on case {case.name!r}: {type(exc).__name__}: {exc}"
            )
        else:
            errors += _check_outputs("baseline", base_out, spec, sizes, _def_line(baseline, ref_path), reference=False)
    toml = spec.directory / "problem.toml"
    text = toml.read_text(encoding="utf-8")
    for sol in spec.solutions:
        line = next((n for n, row in enumerate(text.splitlines(), 1) if sol.file in row), None)
        where = f"{toml}:{line}" if line else str(toml)
        if sol.language not in spec.languages:
            errors.append(f"{where}: solution {sol.file} is in {sol.language}, which the problem does not accept")
        if Path(sol.file).suffix != specmod.SOURCE_SUFFIX[sol.language]:
            errors.append(
                f"{where}: solution {sol.file} should end in {specmod.SOURCE_SUFFIX[sol.language]} for {sol.language}"
            )
    return errors + _check_hidden_shapes(spec, module)


def _check_hidden_shapes(spec: specmod.ProblemSpec, module: Any) -> list[str]:
    """The [[hidden_benchmarks]] rules of judge/hidden_shapes.py, and the reference run at every
    corner of each template's CPU sizes: a drawn shape must be one it can generate and answer with
    the interface's tensors (GPU sizes are too large to generate here)."""
    from judge.harness.common.tensors import DTYPES

    toml = spec.directory / "problem.toml"
    text = toml.read_text(encoding="utf-8")
    errors = [f"{toml}: {issue}" for issue in hidden_shapes.problem_issues(spec)]
    for template in spec.hidden_benchmarks:
        line = hidden_shapes.template_line(text, template.name)
        where = f"{toml}:{line}" if line else str(toml)
        errors += [f"{where}: {issue}" for issue in hidden_shapes.issues_of(spec, template)]
        for sizes in hidden_shapes.corners(template.cpu_sizes) if template.cpu_sizes else ():
            label = f"[[hidden_benchmarks]] {template.name!r} at cpu_sizes {sizes}"
            try:
                inputs = module.generate_inputs(seed=1, device="cpu", **sizes)
                outputs = module.reference(**inputs, **sizes)
            except Exception as exc:
                errors.append(f"{where}: {label}: the reference fails: {type(exc).__name__}: {exc}")
                continue
            for t in spec.inputs:
                got = inputs.get(t.name)
                if got is None or tuple(got.shape) != t.concrete_shape(sizes) or got.dtype != DTYPES[t.dtype]:
                    errors.append(
                        f"{where}: {label}: generate_inputs gives no {t.dtype} {t.name} of the interface's shape"
                    )
            errors += [
                f"{where}: {label}: {message.split(': ', 1)[-1]}"
                for message in _check_outputs("reference", outputs, spec, sizes, where, reference=True)
            ]
    return errors


def _check_outputs(
    what: str, outputs: Any, spec: specmod.ProblemSpec, sizes: dict[str, int], where: str, reference: bool
) -> list[str]:
    import torch

    from judge.harness.common.tensors import DTYPES, is_float

    if not isinstance(outputs, dict):
        return [f"{where}: {what}() must return a dict of outputs, got {type(outputs).__name__}"]
    errors = []
    for t in spec.outputs:
        got = outputs.get(t.name)
        if not isinstance(got, torch.Tensor):
            errors.append(f"{where}: {what}() gives no tensor {t.name!r}")
            continue
        want = t.concrete_shape(sizes)
        if tuple(got.shape) != want:
            errors.append(f"{where}: {what}() gives {t.name} of shape {tuple(got.shape)}, the interface says {want}")
        allowed = {DTYPES[t.dtype]}
        if reference and is_float(t.dtype):
            allowed = {torch.float64, torch.float32, DTYPES[t.dtype]}
        if got.dtype not in allowed:
            errors.append(
                f"{where}: {what}() gives {t.name} as {got.dtype}, expected one of {sorted(map(str, allowed))}"
            )
    return errors


def cmd_validate(args: argparse.Namespace) -> int:
    root = Path(args.root) if args.root else specmod.PROBLEMS_DIR
    specs, errors = specmod.load_all(root)
    messages = [str(e) for e in errors]
    for spec in specs:
        if args.slugs and spec.slug not in args.slugs:
            continue
        found = validate_problem(spec, Path(args.references) if args.references else None)
        try:
            ladder.load_ladder(spec.slug, root)
        except ladder.LadderError as exc:
            found.append(str(exc))
        messages += found
        if not found:
            print(
                f"ok    {spec.slug}: {len(spec.tests)} tests, {len(spec.benchmarks)} benchmarks, {len(spec.solutions)} corpus files"
            )
    for message in messages:
        print(f"error {message}")
    print(f"{len(specs) + len(errors)} problems, {len(messages)} errors")
    return EXIT_FAILED if messages else EXIT_OK


# ---------------------------------------------------------------------------------------------
# selftest


def cmd_worker(argv: list[str]) -> int:
    try:
        from judge import worker
    except ImportError as exc:
        print(f"the judge worker (judge/worker.py) is not available: {exc}", file=sys.stderr)
        return EXIT_FAILED
    main = getattr(worker, "main", None)
    if main is None:
        print("judge/worker.py has no main(argv)", file=sys.stderr)
        return EXIT_FAILED
    return int(main(argv) or 0)


def cmd_ceilings(args: argparse.Namespace) -> int:
    config = cli_config()
    if config.device != "cuda":
        # The roofs a CPU host's practice runs are drawn against (never a floor: CPU runs are
        # never ranked and get no % of speed of light; docs/judging.md section 8).
        ceilings = config.get_ceilings()
        if args.json:
            print(json.dumps({**ceilings, "device": "cpu"}, indent=2))
        else:
            print("CPU (no GPU on this host: these roofs draw practice runs' rooflines; nothing here is ranked)")
            print(f"  memory bandwidth  {ceilings['dram_gbps']:.1f} GB/s")
            print(f"  bf16 matmul       {ceilings['bf16_tflops'] * 1e3:.1f} GFLOP/s")
            print(f"  fp32 matmul       {ceilings['fp32_tflops'] * 1e3:.1f} GFLOP/s")
            print(f"  fp8 scaled matmul {ceilings.get('fp8_tflops', 0) * 1e3:.1f} GFLOP/s")
        return EXIT_OK
    if args.fresh and config.ceilings_cache is not None and config.ceilings_cache.exists():
        config.ceilings_cache.unlink()
    ceilings = config.get_ceilings()
    if args.json:
        print(json.dumps(ceilings, indent=2))
    else:
        from judge.harness.parent.sysinfo import static_info

        print(f"GPU: {static_info('cuda', config.gpu_index).get('gpu')}")
        print(f"  DRAM bandwidth  {ceilings['dram_gbps']:.0f} GB/s")
        print(f"  bf16 matmul     {ceilings['bf16_tflops']:.0f} TFLOP/s")
        print(f"  fp32 matmul     {ceilings['fp32_tflops']:.1f} TFLOP/s (TF32 off)")
        print(f"  fp8 matmul      {ceilings.get('fp8_tflops', 0):.0f} TFLOP/s (torch._scaled_mm, fast accumulation)")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m judge", description="Gridstride's judge.")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="judge one file")
    run.add_argument("--problem", required=True)
    run.add_argument("--language", choices=specmod.LANGUAGES, help="default: from the file (.cu, imports)")
    run.add_argument("--mode", choices=("test", "benchmark", "profile"), default="test")
    run.add_argument("--json", action="store_true", help="print the versioned JSON report")
    run.add_argument("--seed", type=int, default=0, help="public seed")
    run.add_argument("--cpu", action="store_true", help="judge on the CPU even where a GPU exists")
    run.add_argument("file")

    val = sub.add_parser("validate", help="check every problem without a GPU")
    val.add_argument("slugs", nargs="*")
    val.add_argument("--root", help=argparse.SUPPRESS)
    val.add_argument("--references", help=argparse.SUPPRESS)

    st = sub.add_parser("selftest", help="judge every corpus entry and compare with its expected verdict")
    st.add_argument("slugs", nargs="*")
    st.add_argument("--cpu-only", action="store_true", help="judge on the CPU even where a GPU exists")
    st.add_argument("--mode", choices=("test", "benchmark", "profile"), help="default: benchmark on GPU, test on CPU")
    st.add_argument("--seed", type=int, default=0)
    st.add_argument("--quick", action="store_true", help="short timing (0.5 s per shape, 4 input sets): verdicts only")
    st.add_argument("--only", action="append", help="judge only corpus files whose path contains this (repeatable)")
    st.add_argument(
        "--time-cap", type=float, help="cap every time limit at this many seconds (faster time_limit entries)"
    )
    st.add_argument("-v", "--verbose", action="store_true")

    ce = sub.add_parser("ceilings", help="measure (or read the cached) machine ceilings of this GPU")
    ce.add_argument("--fresh", action="store_true", help="ignore the cached measurement")
    ce.add_argument("--json", action="store_true")

    sub.add_parser("worker", help="run the Celery judge worker (arguments go to judge.worker)", add_help=False)

    co = sub.add_parser("compose-gpus", help="write a compose file with one judge worker per GPU of this host")
    co.add_argument("--layout", help="GPUs per worker in index order, e.g. 1,1,2 (default: one each)")
    co.add_argument("--memory-gib", type=int, help="each worker's host memory limit (default: none)")
    co.add_argument("--cpus", type=int, default=os.cpu_count() or 0, help="host CPUs shared out (default: all)")
    co.add_argument("--remote", action="store_true", help="a judge-only host: the broker is CELERY_BROKER_URL")
    co.add_argument("--nvidia-smi-output", help="read this file instead of running nvidia-smi")
    return parser


def cmd_compose_gpus(args: argparse.Namespace) -> int:
    from judge import gpu_compose

    try:
        text = Path(args.nvidia_smi_output).read_text() if args.nvidia_smi_output else None
        gpus = gpu_compose.parse_gpus(text) if text is not None else gpu_compose.query_gpus()
        layout = [int(k) for k in args.layout.split(",")] if args.layout else None
        workers = gpu_compose.plan_workers(gpus, layout, args.cpus)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        print(f"compose-gpus: {exc}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(gpu_compose.render(workers, memory_gib=args.memory_gib, remote=args.remote))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if argv[:1] == ["worker"]:
        return cmd_worker(argv[1:])
    args = build_parser().parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "validate":
        return cmd_validate(args)
    if args.command == "selftest":
        from judge.selftest import cmd_selftest

        return cmd_selftest(args)
    if args.command == "ceilings":
        return cmd_ceilings(args)
    if args.command == "compose-gpus":
        return cmd_compose_gpus(args)
    return EXIT_USAGE
