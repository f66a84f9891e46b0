import torch
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(w_ptr, x_ptr, y_ptr, m, k, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    # TODO: loop over k in steps of BLOCK_K: load a masked [BLOCK_M, BLOCK_K] tile of w and the
    # matching slice of x, convert both to tl.float32, add the row sums of their product to acc
    # then store acc into y[rows]
    pass


def solve(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, m: int, k: int) -> None:
    BLOCK_M, BLOCK_K = 16, 256
    matvec_kernel[(triton.cdiv(m, BLOCK_M),)](w, x, y, m, k, BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
