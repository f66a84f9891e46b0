import torch
import triton
import triton.language as tl

GROUP = 128  # k per scale and zero point


@triton.jit
def w4a16_kernel(
    a_ptr, qw_ptr, s_ptr, z_ptr, c_ptr, m, n, k,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP: tl.constexpr,
):  # fmt: skip
    # One program per BLOCK_M tokens x BLOCK_N output features; BLOCK_K divides GROUP, so a k tile
    # lies in one group.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    features = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    groups = k // GROUP
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        # TODO: load the a tile [BLOCK_M, BLOCK_K] (masked to rows < m, other=0).
        # TODO: load the words holding the weights [BLOCK_N, BLOCK_K]: element (j, p) is in word
        # qweight[j, p // 8] (row stride k // 8) at bits 4 * (p % 8) .. + 3, so
        # q = (word >> (4 * (p % 8))) & 0xF (masked to features < n, other=0).
        # TODO: the group g = k0 // GROUP: load scales[j, g] and zeros[j, g] (row stride groups)
        # and dequantize w = (q - zero) * scale in fp32, then .to(tl.bfloat16).
        # TODO: acc = tl.dot(a_tile, tl.trans(w_tile), acc)
        pass
    # TODO: store acc.to(tl.bfloat16) into c[rows, features], masked to rows < m, features < n.


def solve(
    a: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, c: torch.Tensor,
    m: int, n: int, k: int,
) -> None:  # fmt: skip
    BLOCK_M = min(64, max(16, triton.next_power_of_2(m)))  # tl.dot needs at least 16 rows
    BLOCK_N, BLOCK_K = 64, 64
    grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
    w4a16_kernel[grid](
        a, qweight, scales, zeros, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP=GROUP
    )
