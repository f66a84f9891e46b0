"""Triton's CPU interpreter with the judge's fixes computes what a GPU computes (a torch model of
it, on the CPU), and what it cannot run gets the "needs a GPU" verdict, never a wrong answer.

The probe (bench/interpreter_probe.py) runs one kernel per construct in its own process, once with
the fixes and once without: each fix is pinned by both sides (wrong as Triton ships, right with
the fix), so a Triton upgrade that changes either fails here loudly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.judge.judging_helpers import judge

ROOT = Path(__file__).resolve().parents[2]

# Wrong or failing in the interpreter as shipped, right with the fixes (bench/interpreter_probe.py).
FIXED = [
    "bf16 tiles, acc= (fp32 accumulator)",
    "bf16 tiles, result stored as bf16",
    "bf16 tiles, tl.trans(b)",
    "fp32 tiles, input_precision=tf32",
    "fp32 -> bf16 (default: rtne)",
    "fp32 -> bf16, fp_downcast_rounding='rtz'",
    "fp32 -> fp16, fp_downcast_rounding='rtz'",
    "fp32 -> bf16 of inf and nan",
    "fp64 -> bf16",
    "bf16 -> fp32, fp16 -> fp32",
    "bf16 -> fp16 and fp16 -> bf16",
    "bf16 -> int32, int32 -> bf16",
    "fp32 -> fp8e4nv (rtne)",
    "fp8e4nv -> fp32",
    "bf16 -> fp8e4nv",
    "fp32 -> fp8e5 (rtne)",
    "fp8e5 -> fp32",
    "bf16 -> fp8e5",
    "bf16 add",
    "bf16 sub",
    "bf16 mul",
    "bf16 div",
    "bf16 lt",
    "bf16 where",
    "bf16 fma",
    "bf16 clamp",
    "fp16 fma",
    "bf16 abs, neg",
    "bf16 with float literals, tl.full and tl.zeros in bf16",
    "tanh (fp32)",
    "libdevice_erf (fp32)",
    "libdevice_exp (fp32)",
    "fast_expf (fp32)",
    "log1p (fp32)",
    "rint (fp32)",
    "isnan (fp32)",
    "popc (int32)",
    "pow (fp32)",
    "atan2 (fp32)",
    "tl.umulhi on int32 and uint32",
    "tl.sum over bf16",
    "tl.reduce(custom add) over bf16",
    "scan_custom over bf16",
    "sort over bf16",
    "sort_desc over bf16",
    "atomic_add bf16",
    "atomic_add bf16, masked",
    "@triton.autotune over configs",
    "torch.cuda.synchronize()",
    "bf16 rmsnorm (weights multiplied in bf16)",
]
# What cannot run without a GPU: the probe must see NeedsGpu, so the judge says "needs a GPU".
NEEDS_GPU = {
    "tl.inline_asm_elementwise": "tl.inline_asm_elementwise (inline PTX)",
    "tl.dot_scaled (microscaled fp8)": "tl.dot_scaled",
    "float2int_rd (a directed rounding mode)": "libdevice function float2int_rd",
    "a tensor made with device='cuda'": "a CUDA tensor or torch.cuda call",
}


def probe(*flags: str) -> dict[str, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "interpreter_probe.py"), "--json", *flags],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return {row["construct"]: row for row in json.loads(done.stdout)}


@pytest.fixture(scope="module")
def fixed() -> dict[str, dict[str, Any]]:
    return probe()


@pytest.fixture(scope="module")
def raw() -> dict[str, dict[str, Any]]:
    return probe("--raw")


@pytest.mark.parametrize("construct", FIXED)
def test_the_fix_makes_the_interpreter_match_torch(construct: str, fixed: dict, raw: dict) -> None:
    assert raw[construct]["status"] in ("wrong", "error", "needs-gpu"), raw[construct]
    assert fixed[construct]["status"] == "right", fixed[construct]


def test_every_construct_is_right_refused_as_on_a_gpu_or_needs_a_gpu(fixed: dict) -> None:
    """No row may be wrong or fail in an unexplained way with the fixes installed."""
    bad = {name: row for name, row in fixed.items() if row["status"] not in ("right", "same-error", "needs-gpu")}
    assert not bad
    needs = {name: row["detail"] for name, row in fixed.items() if row["status"] == "needs-gpu"}
    assert needs == NEEDS_GPU


def test_constructs_right_as_shipped_stay_right(fixed: dict, raw: dict) -> None:
    """The fixes break nothing the interpreter already did right (fp16 tl.dot, atomics, block pointers...)."""
    already = [name for name, row in raw.items() if row["status"] == "right"]
    assert len(already) > 80
    assert [name for name in already if fixed[name]["status"] != "right"] == []


def test_install_refuses_a_triton_it_was_not_checked_against() -> None:
    # In a process of its own: importing Triton here, without TRITON_INTERPRET, would make the
    # standard library's jit helpers compiled-mode for every later in-process interpreted kernel.
    script = (
        "import triton\n"
        "triton.__version__ = '9.9.9'\n"
        "from judge.harness.child.triton_interpreter import install\n"
        "try:\n    install()\nexcept RuntimeError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "pinned to Triton 3.6.0, this is 9.9.9" in done.stdout, done.stdout + done.stderr[-2000:]


INLINE_ASM = """
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = tl.inline_asm_elementwise("add.f32 $0, $1, $2;", "=r,r,r", [a, b], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(c_ptr + offs, c, mask=mask)


def solve(a, b, c, n):
    add_kernel[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
"""

LIBDEVICE_ROUNDING = """
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask)
    tl.store(c_ptr + offs, libdevice.float2int_rd(c).to(tl.float32), mask=mask)


def solve(a, b, c, n):
    add_kernel[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
"""

DOT_SCALED = """
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    rows = tl.arange(0, 16)
    cols = tl.arange(0, 32)
    at = rows[:, None] * 32 + cols[None, :]
    bt = cols[:, None] * 16 + rows[None, :]
    a = tl.load(a_ptr + at, mask=at < n, other=0.0).to(tl.float8e4nv)
    b = tl.load(b_ptr + bt, mask=bt < n, other=0.0).to(tl.float8e4nv)
    c = tl.dot_scaled(a, None, "e4m3", b, None, "e4m3")
    ct = rows[:, None] * 16 + rows[None, :]
    tl.store(c_ptr + ct, c, mask=ct < n)


def solve(a, b, c, n):
    add_kernel[(1,)](a, b, c, n, BLOCK=1024)
"""

CUDA_TENSOR = """
import torch


def solve(a, b, c, n):
    scratch = torch.empty(n, device="cuda")
    torch.add(a, b, out=scratch)
    c.copy_(scratch)
"""


@pytest.mark.parametrize(
    ("source", "language", "construct"),
    [
        (INLINE_ASM, "triton", "tl.inline_asm_elementwise (inline PTX)"),
        (LIBDEVICE_ROUNDING, "triton", "libdevice function float2int_rd"),
        (DOT_SCALED, "triton", "tl.dot_scaled"),
        (CUDA_TENSOR, "pytorch", "a CUDA tensor or torch.cuda call"),
    ],
    ids=["inline-asm", "libdevice-directed-rounding", "dot-scaled", "device-cuda"],
)
def test_a_construct_that_needs_a_gpu_gets_the_needs_a_gpu_verdict(source: str, language: str, construct: str) -> None:
    report = judge(source, language=language, problem="vector_add")
    assert report.verdict == "rejected", report.message
    assert report.message.startswith(f"needs a GPU: {construct} cannot run on this host")
    assert "Nothing was judged wrong" in report.message
    assert not report.ranked


def test_torch_cuda_synchronize_in_a_pytorch_solve_is_a_no_op_on_a_cpu_host() -> None:
    source = """
import torch


def solve(a, b, c, n):
    torch.add(a, b, out=c)
    torch.cuda.synchronize()
"""
    report = judge(source, language="pytorch", problem="vector_add")
    assert report.verdict == "accepted", report.message


def test_the_childs_modules_do_not_import_triton_before_its_warm_up() -> None:
    # The warm-up imports Triton and reports how long that took (report.system["child_warmed_up"]).
    script = "import sys\nimport judge.harness.child.job\nprint('triton' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.stdout.strip() == "False", done.stdout + done.stderr[-2000:]
