"""Check and time the expert kernels of every seed problem on a GPU; compare with the machine.

For each problem it
1. runs reference_kernels/<slug>/expert_triton.py and expert_cuda.cu (compiled with the judge's
   nvcc command line, called through ctypes like a submission), plus PyTorch's baseline, on a
   few correctness cases (small odd sizes and the gpu_only cases) with NaN-poisoned outputs,
   compared with the fp64 reference under the problem's tolerance;
2. times them on every benchmark shape as the judge times a call (bench/expert_timing.py): an L2
   flush (a read of twice the L2 size) and the judge's launch cover before each call, CUDA
   events around it, median of --reps calls after warm-up; the timed outputs are checked
   against the reference too;
3. measures its own ceilings: device copy bandwidth (a large torch copy: bytes read + written
   over time) and the bf16 torch.matmul rate at 8192^3 and at each matmul shape;
4. prints (and with --out writes) a table: problem, shape, kernel, correct?, median us,
   GB/s or TFLOP/s, % of speed of light, target, met?

Targets: vector_add, reduction, softmax >= 85% of copy bandwidth on the largest shape;
matmul >= 70% of torch.matmul (bf16) per shape; paged_attention >= 60% of copy bandwidth per
shape (bytes = q + out + the K/V rows of every live token, from the actual seq_lens).
Catalog problems named on the command line: matmul_bias_gelu >= 70% of torch.matmul at each
shape (the GEMM alone: the epilogue should cost nothing); cross_entropy >= 80% and topk >= 50%
of copy bandwidth on the largest shape (first figures, to be revised after a GPU run). Issue 19:
flash_attention >= 50% of torch's scaled_dot_product_attention at each shape (the library's fused
attention on the same q, k, v); decode_gemm >= 75%, moe_routing >= 40% and kv_cache_int8 >= 60%
of copy bandwidth on the largest shape (first figures as well; kv_cache_int8's largest is the 8k-token
prefill chunk, its decode shapes are launch-bound); grouped_gemm >= 70% of the best library
composition at each shape: one torch.matmul per expert (the reference's baseline) or
torch._grouped_mm where this torch has it and it runs, whichever is faster (a first figure);
top_p_sampling >= 25% of copy bandwidth at batch 256 (a first figure: no kernel does it in one
pass, and the later passes reach L2 only in part there); spec_decode_verify >= 40% of copy
bandwidth on b64-k8-v128256 against its floor (the chosen rows read once; a kernel reads them twice,
the second time partly from L2; a first figure).
w4a16_gemm >= 60% at every shape of what bounds it: the copy bandwidth on the decode shapes,
torch.matmul on the weight dequantized to bf16 beforehand on the prefill shapes (a first figure).
chunked_prefill_attention >= 75% of the library composition at each shape: per sequence the
prefix's pages gathered and joined to the chunk, then torch's scaled_dot_product_attention with
the causal mask at the prefix's offset as a boolean mask and enable_gqa (the reference's baseline;
a first figure).
rope >= 70% of copy bandwidth on the largest shape (q and k read and written in place; a first figure).
fp8_gemm_scaled >= 70% of the faster of torch._scaled_mm with row-wise scales (the baseline) and the
same with fast accumulation, at each shape (a first figure).

    python3 bench/expert_kernels.py --out docs/expert_kernels_h200.md      # ~3-4 minutes on an H200

Needs torch, triton, nvcc; from this repository it takes the problem specs and the judge's
comparison rule and nvcc command line.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import math
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.expert_timing import Ceilings, Timer, measure_ceilings  # noqa: E402
from judge import spec  # noqa: E402
from judge.harness.common.tensors import poison_value, tolerance_ratio  # noqa: E402
from judge.harness.parent.compile import FLAGS, arch_flags  # noqa: E402

NVCC_FLAGS = [*FLAGS, *arch_flags("sm_90")]  # the judge's own command line for an H100/H200
TARGETS = {
    "vector_add": 0.85,
    "reduction": 0.85,
    "softmax": 0.85,
    "matmul": 0.70,
    "paged_attention": 0.60,
    "matmul_bias_gelu": 0.70,
    "cross_entropy": 0.80,
    "topk": 0.50,
    "flash_attention": 0.50,
    "decode_gemm": 0.75,
    "moe_routing": 0.40,
    "kv_cache_int8": 0.60,
    "grouped_gemm": 0.70,
    "top_p_sampling": 0.25,
    "w4a16_gemm": 0.60,
    "chunked_prefill_attention": 0.75,
    "spec_decode_verify": 0.40,
    "fp8_gemm_scaled": 0.70,
    "rope": 0.70,
}
MEMORY_BOUND = (
    *("vector_add", "reduction", "softmax", "paged_attention", "cross_entropy", "topk"),
    *("decode_gemm", "moe_routing", "kv_cache_int8", "top_p_sampling", "spec_decode_verify", "rope"),
)
GEMMS = ("matmul", "matmul_bias_gelu")  # compared with torch.matmul of the same a and b
ATTENTION = ("flash_attention",)  # compared with torch's scaled_dot_product_attention on the same q, k, v
# Compared with the fastest library composition of the same work (library_compositions below).
COMPOSED = ("grouped_gemm", "chunked_prefill_attention", "fp8_gemm_scaled")
# Quantized GEMMs: each shape against what bounds it at the measured ceilings, the copy bandwidth
# where its bytes take longer than its FLOPs at the bf16 matmul rate (decode), else the library
# GEMM on the same operands (prefill): torch.matmul on the weight dequantized to bf16 beforehand.
QUANT_GEMMS = ("w4a16_gemm",)


# ---------------------------------------------------------------------------------------------
# Loading experts like submissions.


def load_module(path: Path, name: str) -> ModuleType:
    module_spec = importlib.util.spec_from_file_location(name, path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def compile_cuda(path: Path, out_dir: Path) -> tuple[Path | None, str]:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return None, "nvcc not found"
    target = out_dir / f"{path.parent.name}_{path.stem}.so"
    result = subprocess.run([nvcc, *NVCC_FLAGS, "-o", str(target), str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        return None, result.stderr[-3000:]
    return target, ""


def cuda_solve(library: Path, problem: spec.ProblemSpec) -> Callable[..., None]:
    lib = ctypes.CDLL(str(library))
    fn = lib.solve
    n_tensors = len(problem.inputs) + len(problem.outputs)
    fn.argtypes = [ctypes.c_void_p] * n_tensors + [ctypes.c_int] * len(problem.sizes)
    fn.restype = None

    def solve(*args: Any) -> None:
        tensors, sizes = args[:n_tensors], args[n_tensors:]
        fn(*[ctypes.c_void_p(t.data_ptr()) for t in tensors], *[ctypes.c_int(s) for s in sizes])

    return solve


@dataclass
class Kernel:
    name: str
    solve: Callable[..., None] | None = None  # solve(inputs..., outputs..., sizes...)
    baseline: Callable[..., dict[str, torch.Tensor]] | None = None  # baseline(**inputs, **sizes)
    error: str = ""


@dataclass
class Row:
    problem: str
    shape: str
    kernel: str
    correct: str
    median_us: float | None = None
    rate: str = ""
    sol: float | None = None
    target: float | None = None
    reps: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def met(self) -> str:
        if self.target is None or self.sol is None:
            return "-"
        return "yes" if self.sol >= self.target and self.correct == "ok" else "NO"


def run_kernel(kernel: Kernel, problem: spec.ProblemSpec, inputs: dict[str, torch.Tensor], sizes: dict[str, int]):
    """One call; returns the outputs (NaN-poisoned before a solve())."""
    if kernel.baseline is not None:
        return kernel.baseline(**inputs, **sizes)
    outputs = {
        t.name: torch.full(t.concrete_shape(sizes), poison_value(t.dtype), dtype=getattr(torch, t.dtype), device="cuda")
        for t in problem.outputs
    }
    assert kernel.solve is not None
    kernel.solve(*[inputs[t.name] for t in problem.inputs], *outputs.values(), *[sizes[s] for s in problem.sizes])
    return outputs


def check(kernel: Kernel, problem: spec.ProblemSpec, ref: ModuleType, sizes: dict[str, int], seed: int) -> float:
    inputs = ref.generate_inputs(seed=seed, device="cuda", **sizes)
    outputs = run_kernel(kernel, problem, inputs, sizes)
    torch.cuda.synchronize()
    expected = ref.reference(**inputs, **sizes)
    return max(tolerance_ratio(outputs[t.name], expected[t.name], problem.tolerance) for t in problem.outputs)


# ---------------------------------------------------------------------------------------------
# Library compositions: what a framework runs for the problem without a kernel of its own.


def library_compositions(
    problem: spec.ProblemSpec, ref: ModuleType, inputs: dict[str, torch.Tensor], sizes: dict[str, int]
) -> dict[str, Callable[[], Any]]:
    """The candidate compositions, by name; each is checked before it is timed (a composition
    the installed torch cannot run, or runs wrong, is left out)."""
    found: dict[str, Callable[[], Any]] = {"reference baseline": lambda: ref.baseline(**inputs, **sizes)}
    if problem.slug == "grouped_gemm" and hasattr(torch, "_grouped_mm"):
        # torch._grouped_mm takes each group's end offset (expert_offsets[1:]) and the weights as
        # [experts, k, n]; a transposed view of w, no copy.
        ends = inputs["expert_offsets"][1:]
        weights = inputs["w"].transpose(1, 2)
        found["torch._grouped_mm"] = lambda: {"c": torch._grouped_mm(inputs["a"], weights, offs=ends)}
    if problem.slug == "fp8_gemm_scaled":
        # the baseline is torch._scaled_mm with row-wise scales; fast accumulation (never promoted
        # to fp32) is faster and, on these shapes, still within the tolerance (docs/tolerances.md)
        sa, sb = inputs["a_scale"][:, None], inputs["b_scale"][None, :]
        found["torch._scaled_mm, fast accumulation"] = lambda: {
            "c": torch._scaled_mm(
                inputs["a"], inputs["b"].T, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=True
            )
        }
    return found


def best_composition_us(
    problem: spec.ProblemSpec,
    ref: ModuleType,
    inputs: dict[str, torch.Tensor],
    expected: dict[str, torch.Tensor],
    sizes: dict[str, int],
    timer: Timer,
) -> tuple[float, str]:
    """Median time of the fastest correct library composition, and its name."""
    best: tuple[float, str] = (math.inf, "none ran")
    for name, run in library_compositions(problem, ref, inputs, sizes).items():
        try:
            got = run()
            torch.cuda.synchronize()
            ratio = max(tolerance_ratio(got[t.name], expected[t.name], problem.tolerance) for t in problem.outputs)
            if ratio > 1:
                continue
            us, _ = timer.median_us(run)
        except Exception:  # a private op missing, or refusing these shapes
            continue
        best = min(best, (us, name))
    return best


# ---------------------------------------------------------------------------------------------
# Per problem.


def kernels_for(
    problem: spec.ProblemSpec, ref: ModuleType, build_dir: Path, candidates: Path | None = None
) -> list[Kernel]:
    kernels: list[Kernel] = []
    triton_path = problem.reference_dir / "expert_triton.py"
    if triton_path.is_file():
        kernels.append(python_kernel("expert_triton", triton_path, f"expert_triton_{problem.slug}"))
        if problem.slug == "softmax" and not kernels[-1].error:
            # Same file, rows longer than 16384 take the online two-pass path: tells whether
            # keeping a 32768-column row in registers (one program per SM) pays off.
            variant = load_module(triton_path, "expert_triton_softmax_online")
            variant.MAX_ROW_IN_REGISTERS = 16384
            kernels.append(Kernel("expert_triton[online>16K]", solve=variant.solve))
    cuda_path = problem.reference_dir / "expert_cuda.cu"
    if cuda_path.is_file():
        kernels.append(cuda_kernel("expert_cuda", cuda_path, problem, build_dir))
    if candidates is not None and (candidates / problem.slug).is_dir():
        kernels += candidate_kernels(problem, candidates / problem.slug, build_dir)
    if hasattr(ref, "baseline"):
        kernels.append(Kernel("torch baseline", baseline=ref.baseline))
    return kernels


def candidate_kernels(problem: spec.ProblemSpec, folder: Path, build_dir: Path) -> list[Kernel]:
    """Kernels that may replace an expert (bench/expert_candidates/README.md): each file is
    checked and timed beside the experts in the same run, so the two compare as ratios."""
    kernels = [
        python_kernel(f"candidate {p.stem}", p, f"candidate_{problem.slug}_{p.stem}")
        for p in sorted(folder.glob("*.py"))
    ]
    return kernels + [cuda_kernel(f"candidate {p.stem}", p, problem, build_dir) for p in sorted(folder.glob("*.cu"))]


def python_kernel(name: str, path: Path, module_name: str) -> Kernel:
    """A Triton or PyTorch file's solve, loaded like a submission (an error row if it does not load)."""
    try:
        return Kernel(name, solve=load_module(path, module_name).solve)
    except Exception as exc:
        return Kernel(name, error=f"import failed: {exc}")


def cuda_kernel(name: str, path: Path, problem: spec.ProblemSpec, build_dir: Path) -> Kernel:
    """A CUDA file compiled with the judge's nvcc command line, its solve called through ctypes."""
    library, log = compile_cuda(path, build_dir)
    return (
        Kernel(name, error=f"nvcc failed: {log}")
        if library is None
        else Kernel(name, solve=cuda_solve(library, problem))
    )


def shape_label(sizes: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def actual_bytes(problem: spec.ProblemSpec, inputs: dict[str, torch.Tensor], sizes: dict[str, int]) -> float:
    if problem.slug != "paged_attention":
        return problem.cost.bytes_for(sizes)
    tokens = int(inputs["seq_lens"].sum())
    per_token = sizes["num_kv_heads"] * sizes["head_dim"] * 2 * 2  # K and V rows, bf16
    q_and_out = 2 * sizes["num_seqs"] * sizes["num_heads"] * sizes["head_dim"] * 2
    pages = sum(-(-int(n) // sizes["block_size"]) for n in inputs["seq_lens"].tolist())
    return tokens * per_token + q_and_out + 4 * sizes["num_seqs"] + 4 * pages


def bench_problem(
    problem: spec.ProblemSpec,
    timer: Timer,
    ceilings: Ceilings,
    build_dir: Path,
    log: Callable[[str], None],
    candidates: Path | None = None,
) -> list[Row]:
    ref = load_module(problem.reference_dir / "reference.py", f"reference_{problem.slug}")
    kernels = kernels_for(problem, ref, build_dir, candidates)
    rows: list[Row] = []
    small = [c for c in problem.tests if not c.gpu_only]
    cases = [small[0], max(small, key=lambda c: sum(c.sizes.values())), small[len(small) // 2]]
    cases += [c for c in problem.tests if c.gpu_only]
    target = TARGETS.get(problem.slug)
    largest = max(problem.benchmarks, key=lambda c: problem.cost.bytes_for(c.sizes)).name

    for kernel in kernels:
        if kernel.error:
            rows.append(Row(problem.slug, "-", kernel.name, "ERROR", notes=[kernel.error[:500]]))
            continue
        worst, failed = 0.0, []
        for i, case in enumerate(cases):
            try:
                ratio = check(kernel, problem, ref, case.sizes, seed=1000 + i)
            except Exception as exc:
                ratio = math.inf
                failed.append(f"{case.name}: {type(exc).__name__}: {str(exc)[:200]}")
            worst = max(worst, ratio)
            if ratio > 1 and not failed:
                failed.append(f"{case.name}: {ratio:.3g}x the tolerance")
        log(f"  {problem.slug} {kernel.name}: correctness cases {'ok' if not failed else failed[0]}")
        rows.append(
            Row(problem.slug, f"{len(cases)} test cases", kernel.name, "ok" if not failed else "FAIL", notes=failed[:3])
        )

    for case in problem.benchmarks:
        inputs = ref.generate_inputs(seed=7, device="cuda", **case.sizes)
        expected = ref.reference(**inputs, **case.sizes)
        nbytes = actual_bytes(problem, inputs, case.sizes)
        flops = problem.cost.flops_for(case.sizes)
        torch_tflops = None
        if problem.slug in GEMMS:
            us, _ = timer.median_us(lambda: torch.matmul(inputs["a"], inputs["b"]))  # noqa: B023
            torch_tflops = flops / (us * 1e-6) / 1e12
        elif problem.slug in QUANT_GEMMS and not memory_bound_shape(nbytes, flops, ceilings):
            us, _ = timer.median_us(quant_library_call(problem.slug, ref, inputs))
            torch_tflops = flops / (us * 1e-6) / 1e12
        elif problem.slug in ATTENTION:
            causal = case.sizes["mask_mode"] == 2
            sdpa = torch.nn.functional.scaled_dot_product_attention
            us, _ = timer.median_us(lambda: sdpa(inputs["q"], inputs["k"], inputs["v"], is_causal=causal))  # noqa: B023
            torch_tflops = flops / (us * 1e-6) / 1e12
        elif problem.slug in COMPOSED:
            us, composition = best_composition_us(problem, ref, inputs, expected, case.sizes, timer)
            torch_tflops = flops / (us * 1e-6) / 1e12 if math.isfinite(us) else None
        for kernel in kernels:
            if kernel.error:
                continue
            row = Row(problem.slug, case.name, kernel.name, "?")
            try:
                outputs = run_kernel(kernel, problem, inputs, case.sizes)
                torch.cuda.synchronize()
                ratio = max(
                    tolerance_ratio(outputs[t.name], expected[t.name], problem.tolerance) for t in problem.outputs
                )
                row.correct = "ok" if ratio <= 1 else f"FAIL ({ratio:.3g}x tol)"
                del outputs
                if kernel.baseline is not None:
                    us, reps = timer.median_us(lambda: kernel.baseline(**inputs, **case.sizes))  # noqa: B023
                else:
                    outs = run_kernel(kernel, problem, inputs, case.sizes)
                    args = [inputs[t.name] for t in problem.inputs] + list(outs.values())
                    args += [case.sizes[s] for s in problem.sizes]
                    us, reps = timer.median_us(lambda: kernel.solve(*args))  # noqa: B023
            except Exception as exc:
                row.correct = "ERROR"
                row.notes.append(f"{type(exc).__name__}: {str(exc)[:300]}")
                rows.append(row)
                log(f"  {problem.slug} {case.name} {kernel.name}: {row.notes[-1]}")
                continue
            row.median_us, row.reps = us, reps
            if problem.slug in MEMORY_BOUND or (problem.slug in QUANT_GEMMS and torch_tflops is None):
                gbps = nbytes / (us * 1e-6) / 1e9
                row.rate = f"{gbps:,.0f} GB/s"
                row.sol = gbps / ceilings.copy_gbps
            else:
                tflops = flops / (us * 1e-6) / 1e12
                row.rate = f"{tflops:,.1f} TFLOP/s"
                row.sol = tflops / torch_tflops if torch_tflops else None
                library = "torch SDPA" if problem.slug in ATTENTION else "torch.matmul"
                library = composition if problem.slug in COMPOSED else library
                row.notes.append(
                    f"{library} {torch_tflops or 0:,.1f} TFLOP/s; {tflops / ceilings.matmul_tflops_8192:.0%} of the 8192^3 rate"
                )
            is_target_shape = (
                problem.slug in (*GEMMS, *ATTENTION, *COMPOSED, *QUANT_GEMMS, "paged_attention") or case.name == largest
            )
            if kernel.baseline is None and is_target_shape:
                row.target = target
            rows.append(row)
            log(
                f"  {problem.slug} {case.name} {kernel.name}: {us:,.1f} us {row.rate} ({row.sol or 0:.0%}) {row.correct}"
            )
        inputs = expected = {}  # release the shape's tensors before the next one
        torch.cuda.empty_cache()
    return rows


def memory_bound_shape(nbytes: float, flops: float, ceilings: Ceilings) -> bool:
    """Whether a shape's bytes at the copy bandwidth take longer than its FLOPs at the bf16 rate."""
    return nbytes / (ceilings.copy_gbps * 1e9) >= flops / (ceilings.matmul_tflops_8192 * 1e12)


def quant_library_call(slug: str, ref: ModuleType, inputs: dict[str, torch.Tensor]) -> Callable[[], Any]:
    """The library's GEMM on a quantized problem's operands, prepared outside the timed call."""
    w = ref.dequantize(inputs["qweight"], inputs["scales"], inputs["zeros"], torch.bfloat16)
    a = inputs["a"]
    return lambda: torch.matmul(a, w.T)


def render(rows: list[Row], ceilings: Ceilings, header: list[str]) -> str:
    out = [
        *header,
        "",
        f"Ceilings measured here: copy {ceilings.copy_gbps:,.0f} GB/s (read + write of 2 GiB); "
        f"bf16 torch.matmul 8192^3 {ceilings.matmul_tflops_8192:,.0f} TFLOP/s.",
        "% SOL: memory-bound problems against the copy bandwidth; GEMMs against torch.matmul, flash_attention "
        "against torch's scaled_dot_product_attention, grouped_gemm and chunked_prefill_attention against the "
        "fastest library composition at the same shape.",
        "",
        "| problem | shape | kernel | correct | median us | rate | % SOL | target | met | notes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        us = f"{r.median_us:,.1f}" if r.median_us is not None else "-"
        sol = f"{r.sol:.0%}" if r.sol is not None else "-"
        target = f">= {r.target:.0%}" if r.target is not None else "-"
        notes = "; ".join(n.replace("|", "/").replace("\n", " ") for n in r.notes)
        out.append(
            f"| {r.problem} | {r.shape} | {r.kernel} | {r.correct} | {us} | {r.rate or '-'} | {sol} | {target} | {r.met} | {notes} |"
        )
    return "\n".join(out) + "\n"


def dry_run(slugs: list[str], candidates: Path | None = None) -> int:
    """Everything that needs no GPU: import the experts, compile and load the CUDA ones."""
    specs, errors = spec.load_all()
    failures = len(errors)
    with tempfile.TemporaryDirectory(prefix="expert-kernels-") as build:
        for problem in specs:
            if slugs and problem.slug not in slugs:
                continue
            ref = load_module(problem.reference_dir / "reference.py", f"reference_{problem.slug}")
            kernels = kernels_for(problem, ref, Path(build), candidates)
            for k in kernels:
                state = f"ERROR {k.error[:300]}" if k.error else "ready"
                failures += bool(k.error)
                print(f"{problem.slug:16s} {k.name:28s} {state}")
            shapes = "; ".join(shape_label(c.sizes) for c in problem.benchmarks)
            print(f"{problem.slug:16s} benchmarks: {shapes}")
    return 1 if failures else 0


def write_table(rows: list[Row], ceilings: Ceilings, timer: Timer, began: float, out: Path | None) -> str:
    """The markdown table of the rows so far, written to `out` when given."""
    import triton

    header = [
        "# Expert kernels on the GPU",
        "",
        f"Produced by `python3 bench/expert_kernels.py` on {ceilings.gpu} ({platform.node()}), "
        f"torch {torch.__version__}, triton {triton.__version__}, {time.strftime('%Y-%m-%d %H:%M')}; "
        f"median of up to {timer.reps} calls, each after an L2 flush"
        f"{' and the launch cover' if timer.cover else ''} as the judge times them; took {time.perf_counter() - began:.0f} s.",
    ]
    table = render(rows, ceilings, header)
    if out:
        out.write_text(table, encoding="utf-8")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="*", help="slugs (default: all)")
    parser.add_argument("--out", type=Path, help="write the markdown table here (e.g. docs/expert_kernels_h200.md)")
    parser.add_argument("--reps", type=int, default=30, help="timed calls per kernel and shape (median; >= 20)")
    parser.add_argument("--max-seconds", type=float, default=1.5, help="cap on timed seconds per kernel and shape")
    parser.add_argument("--dry-run", action="store_true", help="no GPU: load, compile and list what would run")
    parser.add_argument(
        "--no-cover", action="store_true", help="no launch cover: time host-bound calls at the host's pace"
    )
    parser.add_argument(
        "--candidates",
        type=Path,
        default=ROOT / "bench" / "expert_candidates",
        help="also judge DIR/<slug>/*.py (Triton) and *.cu (CUDA): kernels that may replace an expert",
    )
    args = parser.parse_args(argv)
    if args.dry_run:
        return dry_run(args.problems, args.candidates)
    if not torch.cuda.is_available():
        print("needs a CUDA GPU", file=sys.stderr)
        return 2
    began = time.perf_counter()
    # The judge's child runs with these off (judge/harness/child/runner.py), so the baselines are
    # checked and timed here as they are there: reduced-precision bf16 reductions are what take
    # plain PyTorch GEMMs past their tolerances outside the judge (docs/benchmarks.md).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - began:6.1f} s] {message}", flush=True)

    timer = Timer(max(args.reps, 20), args.max_seconds, cover=not args.no_cover)
    ceilings = measure_ceilings(timer)
    log(f"ceilings: copy {ceilings.copy_gbps:,.0f} GB/s, bf16 matmul 8192^3 {ceilings.matmul_tflops_8192:,.0f} TFLOP/s")
    specs, errors = spec.load_all()
    for error in errors:
        log(f"problem error: {error}")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="expert-kernels-") as build:
        for problem in specs:
            if args.problems and problem.slug not in args.problems:
                continue
            log(f"{problem.slug}:")
            try:
                rows += bench_problem(problem, timer, ceilings, Path(build), log, args.candidates)
            except Exception:
                log(traceback.format_exc())
                rows.append(Row(problem.slug, "-", "-", "ERROR", notes=["see the log"]))
            torch.cuda.empty_cache()
            write_table(rows, ceilings, timer, began, args.out)  # a run cut at its time limit keeps these
    table = write_table(rows, ceilings, timer, began, args.out)
    print(table)
    if args.out:
        log(f"wrote {args.out}")
    bad = [r for r in rows if r.correct not in ("ok", "?") or r.met == "NO"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
