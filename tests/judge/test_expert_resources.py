"""The expert kernels compile for sm_90a without spilling registers (no GPU needed).

In a child process: compiling Triton kernels for a GPU target in this process would leave
Triton's language module in compiled mode for the interpreter tests that follow.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_every_expert_kernel_fits_in_registers_on_hopper() -> None:
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas is not installed")
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "kernel_resources.py")], capture_output=True, text=True, timeout=600
    )
    rows = [line.split("|")[1:-1] for line in out.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    rows = [[cell.strip() for cell in row] for row in rows[1:]]  # without the header
    triton_problems = {row[0] for row in rows if row[1].startswith("Triton")}
    assert triton_problems == {"vector_add", "reduction", "softmax", "matmul", "paged_attention"}, out.stderr[-2000:]
    if shutil.which("nvcc"):
        cuda_experts = len(list((ROOT / "reference_kernels").glob("*/expert_cuda.cu")))
        assert sum(row[1].startswith("CUDA") for row in rows) == cuda_experts
    spilled = [row for row in rows if row[5] != "0"]
    assert not spilled and out.returncode == 0, spilled
