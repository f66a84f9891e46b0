import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(gate_ptr, up_ptr, out_ptr, total, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    # TODO: load gate and up where offsets < total and widen them to fp32; out = gate / (1 +
    # exp(-gate)) * up; store it as bf16 (masked the same way)
    pass


def solve(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:
    total = m * n
    swiglu_kernel[(triton.cdiv(total, 1024),)](gate, up, out, total, BLOCK=1024)
