import torch
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    # TODO: load this program's slice of x (masked lanes must add 0), sum it with tl.sum,
    # and store the result in partial_ptr[pid]
    pass


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    BLOCK = 4096
    programs = triton.cdiv(n, BLOCK)
    partials = torch.empty(programs, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(programs,)](x, partials, n, BLOCK=BLOCK)
    # TODO: reduce `partials` into out[0] (a second kernel launch, repeated until one value is left)
