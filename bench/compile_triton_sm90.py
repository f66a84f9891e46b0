"""Compile every Triton kernel of the problem content for sm_90 on a machine without a GPU.

Triton's compiler (frontend, TTGIR passes, LLVM, ptxas) runs without a driver; only launching
needs one. This script installs a stand-in driver that reports an H100/H200 target, turns every
launch into a compile, makes torch tensors on the CPU claim to be CUDA tensors (so solve()
takes its GPU code path), and calls each file's solve() on one small and one benchmark-like
case. It reports compile errors (which otherwise only show up on the GPU host), registers,
spills and whether global loads were vectorised, per kernel specialisation.

    .venv/judge/bin/python bench/compile_triton_sm90.py               # experts + corpus
    .venv/judge/bin/python bench/compile_triton_sm90.py --experts     # experts only
    .venv/judge/bin/python bench/compile_triton_sm90.py --all-shapes softmax   # every GPU shape
    .venv/judge/bin/python bench/compile_triton_sm90.py --experts --candidates fp8_gemm_scaled

Not a correctness check: nothing runs. Exit status 1 when a file that should compile does not.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import SimpleNamespace
from typing import Any

if os.environ.get("TRITON_INTERPRET"):
    sys.exit("run without TRITON_INTERPRET: this compiles for the GPU")

import torch
import triton
from triton.backends.compiler import GPUTarget
from triton.runtime import autotuner, driver, jit

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = ROOT / "bench" / "expert_candidates"  # bench/expert_candidates/README.md
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge import spec  # noqa: E402
from judge.harness import source_checks  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)
COMPILED: list[tuple[str, Any]] = []


class _StandInDriver:
    """Just enough of triton's active driver for compiling (never for launching)."""

    def get_current_target(self) -> GPUTarget:
        return TARGET

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: int | None = None) -> int:
        return 0

    def get_device_interface(self) -> Any:
        return SimpleNamespace(current_device=lambda: 0)

    def get_active_torch_device(self) -> torch.device:
        return torch.device("cpu")

    def get_benchmarker(self) -> Any:
        raise RuntimeError("no benchmarking without a GPU")


def install() -> None:
    driver.set_active(_StandInDriver())
    original_run = jit.JITFunction.run

    def compile_only(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        kernel = original_run(self, *args, grid=grid, warmup=True, **kwargs)
        if hasattr(kernel, "result"):
            kernel = kernel.result()
        COMPILED.append((self.fn.__name__, kernel))
        return kernel

    jit.JITFunction.run = compile_only

    def autotune_compile_all(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.nargs = dict(zip(self.arg_names, args, strict=False))
        configs = self.prune_configs(kwargs) if hasattr(self, "prune_configs") else self.configs
        for config in configs:
            self.fn.run(*args, **{**kwargs, **config.all_kwargs(), "warmup": True})
        self.nargs = None

    autotuner.Autotuner.run = autotune_compile_all
    # solve() functions look at tensor.is_cuda and the SM count: answer as an H200 would.
    torch.Tensor.is_cuda = property(lambda self: True)  # type: ignore[method-assign,assignment]
    torch.cuda.current_device = lambda: 0  # type: ignore[assignment]
    torch.cuda.get_device_properties = lambda *_: SimpleNamespace(multi_processor_count=132)  # type: ignore[assignment]


def load(path: Path) -> Any:
    module_spec = importlib.util.spec_from_file_location(f"sm90_{path.parent.name}_{path.stem}", path)
    assert module_spec and module_spec.loader
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def empty_inputs(problem: spec.ProblemSpec, sizes: dict[str, int]) -> list[Any]:
    """Tensors of the right shape and dtype; values do not matter (nothing runs)."""
    tensors = []
    for t in problem.inputs + problem.outputs:
        dtype = getattr(torch, t.dtype)
        tensors.append(torch.empty(t.concrete_shape(sizes), dtype=dtype))
    return tensors + [sizes[s] for s in problem.sizes]


def resource_usage(cubin: bytes) -> tuple[str, str]:
    """Registers and spill bytes from cuobjdump (CUDA toolkit), "?" when it is not installed."""
    bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    tool = shutil.which("cuobjdump") or (str(bundled) if bundled.is_file() else None)
    if not tool or not cubin:
        return "?", "?"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([tool, "-res-usage", f.name], capture_output=True, text=True).stdout
    regs = re.search(r"REG:(\d+)", out)
    stack = re.search(r"STACK:(\d+)", out)
    return (regs.group(1) if regs else "?"), (f"stack {stack.group(1)} B" if stack else "?")


def describe(kernel: Any) -> str:
    meta = kernel.metadata
    ptx = kernel.asm.get("ptx", "")
    loads = re.findall(r"ld\.global((?:\.[a-z0-9:]+)*)\s", ptx)
    v4 = sum(".v4" in q for q in loads)
    v2 = sum(".v2" in q for q in loads)
    scalar = len(loads) - v4 - v2
    n_regs, n_spills = resource_usage(kernel.asm.get("cubin", b""))
    # wgmma and fp32 adds: an fp8 tl.dot that promotes its accumulator (max_num_imprecise_acc)
    # adds each MMA's result into fp32 registers; one that does not has no such adds.
    wgmma = len(re.findall(r"\bwgmma\.mma_async", ptx))
    fp32_adds = len(re.findall(r"\badd\.(?:rn\.)?f32\b", ptx))
    return (
        f"warps {meta.num_warps} stages {meta.num_stages} smem {meta.shared} B regs {n_regs} "
        f"spills {n_spills} global loads v4/v2/scalar {v4}/{v2}/{scalar} wgmma {wgmma} add.f32 {fp32_adds}"
    )


def scan_refuses(problem: spec.ProblemSpec, solution: spec.Solution) -> bool:
    source = (problem.directory / "solutions" / solution.file).read_text(encoding="utf-8")
    return solution.expect == "rejected" and bool(
        source_checks.find_forbidden(source, solution.language, problem.forbidden[solution.language])
    )


def check_file(problem: spec.ProblemSpec, path: Path, cases: list[dict[str, int]]) -> bool:
    try:
        module = load(path)
    except SyntaxError:
        print(f"  {path.relative_to(ROOT)}: syntax error (expected only for compile_error entries)")
        return False
    ok = True
    for sizes in cases:
        COMPILED.clear()
        started = time.perf_counter()
        try:
            module.solve(*empty_inputs(problem, sizes))
        except Exception as exc:
            ok = False
            print(f"  {path.relative_to(ROOT)} {sizes}: FAILED {type(exc).__name__}: {str(exc)[:400]}")
            if os.environ.get("VERBOSE"):
                traceback.print_exc()
            continue
        took = time.perf_counter() - started
        print(f"  {path.relative_to(ROOT)} {sizes}: {len(COMPILED)} launch(es), {took:.1f} s")
        seen = set()
        for name, kernel in COMPILED:
            if id(kernel) in seen:
                continue
            seen.add(id(kernel))
            print(f"      {name}: {describe(kernel)}")
    return ok


def corpus_cases(
    problem: spec.ProblemSpec, solution: spec.Solution, small: dict[str, int], all_shapes: bool
) -> list[dict[str, int]]:
    """The sizes a corpus file is compiled for: a rejected cheat only the small case; an accepted
    file with all_shapes every gpu_only case and benchmark shape; else the first benchmark too."""
    if solution.expect == "rejected":
        return [small]
    if all_shapes and solution.expect == "accepted":
        return [small, *(c.sizes for c in problem.tests if c.gpu_only), *(b.sizes for b in problem.benchmarks)]
    return [small, problem.benchmarks[0].sizes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experts", action="store_true", help="only reference_kernels/*/expert_triton.py")
    parser.add_argument(
        "--all-shapes",
        action="store_true",
        help="the accepted corpus files on every gpu_only case and benchmark shape too (compile times, spills)",
    )
    parser.add_argument(
        "--candidates",
        action="store_true",
        help="also bench/expert_candidates/<slug>/*.py at every benchmark shape, as the experts",
    )
    parser.add_argument("problems", nargs="*")
    args = parser.parse_args(argv)
    install()
    specs, _ = spec.load_all()
    failures = 0
    for problem in specs:
        if args.problems and problem.slug not in args.problems:
            continue
        small = next(c.sizes for c in problem.tests if not c.gpu_only and c.name not in ("one",))
        # Experts: every benchmark shape (their configurations differ per shape). The corpus: one
        # small case and the first benchmark shape, except entries that hand the work to torch
        # (the "rejected" cheats), which would compute a benchmark-sized result on the CPU, and
        # those the judge's source scan refuses: no kernel of theirs is ever compiled (and torch
        # may refuse the uninitialised inputs, e.g. targets out of range).
        expert_cases = [small] + [b.sizes for b in problem.benchmarks]
        jobs = [(problem.reference_dir / "expert_triton.py", expert_cases)]
        if args.candidates:
            jobs += [(path, expert_cases) for path in sorted((CANDIDATES / problem.slug).glob("*.py"))]
        if not args.experts:
            jobs += [
                (problem.directory / "solutions" / s.file, corpus_cases(problem, s, small, args.all_shapes))
                for s in problem.solutions
                if s.language == "triton" and s.expect != "compile_error" and not scan_refuses(problem, s)
            ]
        print(f"{problem.slug}:")
        for path, cases in jobs:
            if path.is_file() and not check_file(problem, path, cases):
                failures += 1
    print(f"{failures} file(s) failed to compile")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
