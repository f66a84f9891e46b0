"""The expert kernels compile for sm_90a without spilling registers (no GPU needed)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "kernel_resources.py"


def _tool() -> ModuleType:
    if "kernel_resources" not in sys.modules:
        spec = importlib.util.spec_from_file_location("kernel_resources", BENCH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["kernel_resources"] = module  # its dataclasses look themselves up there
        spec.loader.exec_module(module)
    return sys.modules["kernel_resources"]


def test_every_expert_triton_kernel_fits_in_registers_on_hopper() -> None:
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas is not installed")
    rows = _tool().triton_rows()
    assert {row[0] for row in rows} == {"vector_add", "reduction", "softmax", "matmul", "paged_attention"}
    spilled = [row for row in rows if row[5] != "0"]
    assert not spilled, spilled


def test_every_expert_cuda_file_fits_in_registers_on_hopper() -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    rows = _tool().cuda_rows()
    assert len(rows) == 5
    spilled = [row for row in rows if row[5] != "0"]
    assert not spilled, spilled
