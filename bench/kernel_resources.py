"""Registers, spills and shared memory of the expert kernels for the H100/H200, without a GPU.

Triton's compiler and ptxas need no GPU: every expert Triton kernel is compiled here for sm_90a
with the block sizes, warps and stages its solve() uses on the benchmark shapes, and every
expert CUDA file with the judge's nvcc command; ptxas -v reports what each kernel needs. A spill
on a benchmark shape's configuration is a defect to fix before timing anything (METHOD.md: read
what costs no device time first).

    .venv/judge/bin/python bench/kernel_resources.py [--out docs/kernel_resources.md]
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge.harness.parent.compile import FLAGS, arch_flags  # noqa: E402

PTXAS_LINE = re.compile(r"Used (\d+) registers")
SPILL_LINE = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


@dataclass
class TritonCase:
    """One kernel in one configuration an expert launches on a benchmark shape.

    `signature` types every runtime argument; `ints` gives the benchmark shape's value of the
    integer ones. Like the JIT, the compile is told that pointers (from PyTorch's allocator) and
    integers that are multiples of 16 are 16-divisible: without that, Triton can prove no
    alignment, emits narrow loads and does not software-pipeline a matmul's loop at all.
    """

    problem: str
    kernel: str
    signature: dict[str, str]
    constexprs: dict[str, Any]
    num_warps: int
    num_stages: int = 3
    note: str = ""
    ints: dict[str, int] = field(default_factory=dict)

    def attrs(self) -> dict[tuple[int, ...], list[list[Any]]]:
        """The JIT's divisibility specialisation, by argument index."""
        aligned = {}
        for index, (name, kind) in enumerate(self.signature.items()):
            if kind.startswith("*") or self.ints.get(name, 1) % 16 == 0:
                aligned[(index,)] = [["tt.divisibility", 16]]
        return aligned


@functools.cache
def expert(problem: str) -> ModuleType:
    """reference_kernels/<problem>/expert_triton.py, loaded once."""
    path = ROOT / "reference_kernels" / problem / "expert_triton.py"
    spec = importlib.util.spec_from_file_location(f"expert_triton_{problem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def triton_cases() -> list[TritonCase]:
    f32 = {"x_ptr": "*fp32", "y_ptr": "*fp32"}
    attend = {
        **{"q_ptr": "*bf16", "k_ptr": "*bf16", "v_ptr": "*bf16", "table_ptr": "*i32", "lens_ptr": "*i32"},
        **{"out_ptr": "*bf16", "part_acc_ptr": "*fp32", "part_max_ptr": "*fp32", "part_sum_ptr": "*fp32"},
        **{name: "i32" for name in ("num_heads", "num_kv_heads", "head_dim", "block_size", "max_blocks", "max_parts")},
        "qk_scale": "fp32",
    }
    pa, sm, mm = expert("paged_attention"), expert("softmax"), expert("matmul")
    cases = [
        TritonCase(
            "vector_add", "_add_full_blocks", {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"}, {"BLOCK": 4096}, 8
        ),
        TritonCase(
            "reduction",
            "_partial_sums",
            {"x_ptr": "*fp32", "partial_ptr": "*fp32", "n": "i32"},
            {"BLOCK": 4096},
            8,
            ints={"n": 1 << 28},
        ),
    ]
    for n in (1024, 16384, 32768):  # the softmax benchmark shapes' row lengths
        block_n, rows, warps = sm.row_launch(n)
        cases.append(
            TritonCase(
                "softmax",
                "_softmax_rows",
                {**f32, "m": "i32", "n": "i32"},
                {"ROWS": rows, "BLOCK_N": block_n, "EVEN_N": block_n == n},
                warps,
                note=f"rows of {n}",
                ints={"m": 4096, "n": n},
            )
        )
    for group in (4, 8):  # the benchmark shapes' query heads per KV head
        cases.append(
            TritonCase(
                "paged_attention",
                "_attend_partition",
                attend,
                {"GROUP": group, "GROUP_PAD": 16, "D_PAD": 128, "EVEN_D": True, "TILE": pa.TILE}
                | {"PARTITION": pa.PARTITION, "SINGLE": False, "INTERPRETED": False},
                pa.ATTEND_WARPS,
                note=f"group {group}, head_dim 128",
                ints={"num_heads": 32, "num_kv_heads": 32 // group, "head_dim": 128, "block_size": 16}
                | {"max_blocks": 256, "max_parts": 8},
            )
        )
    for config in mm._BIG:
        kwargs = config.kwargs
        cases.append(
            TritonCase(
                "matmul",
                "_matmul_kernel",
                {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "m": "i32", "n": "i32", "k": "i32"},
                {**kwargs, "EVEN_K": True, "INTERPRETED": False},
                config.num_warps,
                config.num_stages,
                note="{BLOCK_M}x{BLOCK_N}x{BLOCK_K}".format(**kwargs) + f", {config.num_stages} stages",
                ints={"m": 8192, "n": 8192, "k": 8192},
            )
        )
    return cases


def ptxas_report(ptx: str) -> tuple[int | None, int | None]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.ptx"
        path.write_text(ptx)
        out = subprocess.run(
            ["ptxas", "-v", "-arch=sm_90a", str(path), "-o", "/dev/null"], capture_output=True, text=True
        )
    return _parse(out.stdout + out.stderr)


def _parse(text: str) -> tuple[int | None, int | None]:
    regs = [int(m.group(1)) for m in PTXAS_LINE.finditer(text)]
    spills = [int(m.group(1)) + int(m.group(2)) for m in SPILL_LINE.finditer(text)]
    return (max(regs) if regs else None), (max(spills) if spills else None)


def triton_rows() -> list[list[str]]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    rows = []
    for case in triton_cases():
        fn = getattr(expert(case.problem), case.kernel)
        signature = {**case.signature, **{name: "constexpr" for name in case.constexprs}}
        compiled = triton.compile(
            ASTSource(fn=fn, signature=signature, constexprs=case.constexprs, attrs=case.attrs()),
            target=GPUTarget("cuda", 90, 32),
            options={"num_warps": case.num_warps, "num_stages": case.num_stages},
        )
        regs, spills = ptxas_report(compiled.asm["ptx"])
        figures = [str(case.num_warps), str(regs), str(spills), str(compiled.metadata.shared)]
        rows.append([case.problem, f"Triton {case.kernel}", case.note or "-", *figures])
    return rows


def cuda_rows() -> list[list[str]]:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return []
    rows = []
    for path in sorted((ROOT / "reference_kernels").glob("*/expert_cuda.cu")):
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [nvcc, *FLAGS, *arch_flags("sm_90"), "-Xptxas", "-v", "-o", f"{tmp}/k.so", str(path)]
            out = subprocess.run(cmd, capture_output=True, text=True)
        blocks = re.split(r"Compiling entry function '", out.stdout + out.stderr)[1:]
        regs = [r for r in (_parse(block)[0] for block in blocks) if r is not None]
        spills = [s for s in (_parse(block)[1] for block in blocks) if s is not None]
        smem = [int(m.group(1)) for block in blocks for m in re.finditer(r"(\d+) bytes smem", block)]
        figures = [str(max(regs, default=0)), str(max(spills, default=0)), str(max(smem, default=0))]
        rows.append(
            [path.parent.name, "CUDA expert_cuda.cu", f"{len(blocks)} kernels (largest figures)", "-", *figures]
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write the table here as markdown")
    args = parser.parse_args()
    header = ["problem", "kernel", "configuration", "warps", "registers", "spill bytes", "shared bytes"]
    rows = triton_rows() + cuda_rows()
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    table = "\n".join(lines)
    print(table)
    if args.out:
        args.out.write_text(
            "# Expert kernels: registers and spills on sm_90a\n\n"
            "Compiled without a GPU by `bench/kernel_resources.py` (Triton's compiler and ptxas for\n"
            "sm_90a; the CUDA files with the judge's nvcc command). Spill bytes are stores plus loads\n"
            "per thread, the largest over a file's kernels where one row stands for several.\n\n" + table + "\n"
        )
    spilled = [row for row in rows if row[5] not in ("0", "None")]
    return 1 if spilled else 0


if __name__ == "__main__":
    raise SystemExit(main())
