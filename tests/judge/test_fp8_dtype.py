"""float8_e4m3fn as a judge dtype (fp8_gemm_scaled): carried bit for bit between the processes,
poisoned with NaN like the other floats, and the fp8 tensor-core roof draws its problems' floor."""

from __future__ import annotations

import math

import torch

from judge import spec as specmod
from judge.harness.common.tensors import checksum, compare, from_bytes, poison_, to_bytes
from judge.harness.parent.verdict import floor_us

E4M3 = "float8_e4m3fn"


def test_e4m3_bytes_come_back_bit_for_bit_with_the_same_checksum() -> None:
    values = torch.randn(257).mul_(100).clamp_(-448, 448).to(torch.float8_e4m3fn)
    back = from_bytes(bytearray(to_bytes(values)), E4M3, (257,), "cpu")
    assert back.dtype == torch.float8_e4m3fn
    assert torch.equal(back.view(torch.uint8), values.view(torch.uint8))
    assert checksum(back) == checksum(values)
    assert specmod.DTYPES[E4M3] == 1


def test_an_e4m3_output_left_poisoned_counts_as_unwritten() -> None:
    out = torch.empty(8, dtype=torch.float8_e4m3fn)
    poison_(out, E4M3)
    assert bool(torch.isnan(out.float()).all())  # 0x7F: e4m3fn's NaN, which no saturating cast stores
    result = compare(torch.ones(8, dtype=torch.float64), out, atol=0.0, rtol=0.1, dtype_name=E4M3)
    assert not result.passed and result.unwritten == 8


def test_the_fp8_roof_bounds_the_floor_of_an_fp8_problem() -> None:
    problem = specmod.load("fp8_gemm_scaled")
    assert problem.cost.compute_roof == "fp8_tensor"
    sizes = {"m": 8192, "n": 4096, "k": 4096}  # compute-bound: 275 GFLOP, 136 MB
    ceilings = {"dram_gbps": 4000.0, "fp32_tflops": 60.0, "bf16_tflops": 700.0, "fp8_tflops": 1400.0}
    expected_us = 2 * 8192 * 4096 * 4096 / 1400e12 * 1e6
    assert math.isclose(floor_us(problem, sizes, ceilings, "cuda"), expected_us, rel_tol=1e-9)
