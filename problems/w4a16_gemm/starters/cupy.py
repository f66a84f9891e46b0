import cupy as cp

# CuPy has no bfloat16 dtype: a, scales and c arrive as uint16 arrays holding the bf16 bits;
# qweight is int32 and zeros uint8.
w4a16_kernel = cp.RawKernel(
    r"""
#include <cuda_bf16.h>
extern "C" __global__ void w4a16_kernel(const __nv_bfloat16* a, const int* qweight, const __nv_bfloat16* scales,
                                        const unsigned char* zeros, __nv_bfloat16* c, int m, int n, int k) {
    // TODO: one warp per output feature (row of qweight, k / 8 words): walk the row once, unpack
    // each word's eight weights (value i in bits 4i..4i+3; k index 8 * word + i), subtract the
    // group's zero and multiply by its scale (group = word / 16), keep one float sum per token,
    // reduce each across the warp, write c[token * n + feature] as bf16
}
""",
    "w4a16_kernel",
)


def solve(
    a: cp.ndarray, qweight: cp.ndarray, scales: cp.ndarray, zeros: cp.ndarray, c: cp.ndarray, m: int, n: int, k: int
) -> None:
    warps_per_block = 8
    blocks = (n + warps_per_block - 1) // warps_per_block
    args = (a, qweight, scales, zeros, c, cp.int32(m), cp.int32(n), cp.int32(k))
    w4a16_kernel((blocks,), (32 * warps_per_block,), args)
