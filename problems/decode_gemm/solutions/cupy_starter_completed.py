"""Accepted: the CuPy starter completed as its TODO says: one warp per output feature walks the
feature's weight row once, keeping one fp32 sum per token (up to 64, in registers: the token loop
is unrolled to its bound and guarded by m); each sum is reduced across the warp and lane 0 writes
c[token, feature] as bf16."""

import cupy as cp

# CuPy has no bfloat16 dtype: a, w and c arrive as uint16 arrays holding the bf16 bits.
decode_gemm_kernel = cp.RawKernel(
    r"""
#include <cuda_bf16.h>
#define MAX_TOKENS 64  // the statement: 1 <= m <= 64

extern "C" __global__ void decode_gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* w, __nv_bfloat16* c,
                                              int m, int n, int k) {
    int feature = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (feature >= n) return;
    const __nv_bfloat16* wrow = w + (long long)feature * k;
    float sum[MAX_TOKENS];
#pragma unroll
    for (int t = 0; t < MAX_TOKENS; ++t) sum[t] = 0.0f;
    for (int p = lane; p < k; p += 32) {
        float wv = __bfloat162float(wrow[p]);
#pragma unroll
        for (int t = 0; t < MAX_TOKENS; ++t) {
            if (t < m) sum[t] += __bfloat162float(a[(long long)t * k + p]) * wv;
        }
    }
#pragma unroll
    for (int t = 0; t < MAX_TOKENS; ++t) {
        if (t < m) {
            float s = sum[t];
            for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
            if (lane == 0) c[(long long)t * n + feature] = __float2bfloat16(s);
        }
    }
}
""",
    "decode_gemm_kernel",
)


def solve(a: cp.ndarray, w: cp.ndarray, c: cp.ndarray, m: int, n: int, k: int) -> None:
    warps_per_block = 8
    blocks = (n + warps_per_block - 1) // warps_per_block
    decode_gemm_kernel((blocks,), (32 * warps_per_block,), (a, w, c, cp.int32(m), cp.int32(n), cp.int32(k)))
