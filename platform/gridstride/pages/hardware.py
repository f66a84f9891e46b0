"""Ceilings of the reference GPU, for the speed-of-light numbers printed in every statement.

Judged runs carry their own measured ceilings (Report.ceilings); these are the numbers a reader
plans against before submitting. Measured on the project's H200 host (DESIGN.md section 9), with
the fp32 figure from the datasheet (vector fp32 is not what our matmul probe measures) and the fp8
figure twice the measured bf16 one (the datasheet's dense fp8 : bf16 ratio) until the H200's own
fp8 ceiling (judge/harness/parent/ceilings.py) replaces it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ceilings:
    name: str
    dram_gbps: float
    fp32_tflops: float
    bf16_tensor_tflops: float
    fp8_tensor_tflops: float

    def peak_tflops(self, compute_roof: str) -> float:
        peaks = {"bf16_tensor": self.bf16_tensor_tflops, "fp8_tensor": self.fp8_tensor_tflops}
        return peaks.get(compute_roof, self.fp32_tflops)

    def floor_us(self, flops: float, nbytes: float, compute_roof: str) -> float:
        """The speed-of-light time: the slower of moving the bytes and doing the arithmetic."""
        memory = nbytes / (self.dram_gbps * 1e9)
        compute = flops / (self.peak_tflops(compute_roof) * 1e12)
        return max(memory, compute) * 1e6

    def bound(self, flops: float, nbytes: float, compute_roof: str) -> str:
        memory = nbytes / (self.dram_gbps * 1e9)
        compute = flops / (self.peak_tflops(compute_roof) * 1e12)
        return "memory" if memory >= compute else "compute"


REFERENCE_GPU = Ceilings(
    name="NVIDIA H200", dram_gbps=4300.0, fp32_tflops=67.0, bf16_tensor_tflops=740.0, fp8_tensor_tflops=1480.0
)
