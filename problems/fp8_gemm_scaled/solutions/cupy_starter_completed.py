"""Accepted: the CuPy starter completed as its TODO says: one warp per output feature walks the
feature's row of b once, keeping one fp32 sum of exact e4m3 products per token (16 tokens a pass,
in registers; more tokens take further passes); each sum is reduced across the warp and lane 0
applies both scales and writes c[token, feature] as bf16."""

import cupy as cp

# CuPy has no fp8 or bfloat16 dtype: a and b arrive as uint8 arrays holding the e4m3 bytes, c as
# a uint16 array holding the bf16 bits; a_scale and b_scale are float32.
fp8_gemm_kernel = cp.RawKernel(
    r"""
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#define TOKENS 16

extern "C" __global__ void fp8_gemm_kernel(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, const float* a_scale,
                                           const float* b_scale, __nv_bfloat16* c, int m, int n, int k) {
    int feature = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (feature >= n) return;
    const __nv_fp8_e4m3* brow = b + (long long)feature * k;
    for (int t0 = 0; t0 < m; t0 += TOKENS) {
        float sum[TOKENS];
#pragma unroll
        for (int t = 0; t < TOKENS; ++t) sum[t] = 0.0f;
        for (int p = lane; p < k; p += 32) {
            float bv = float(brow[p]);
#pragma unroll
            for (int t = 0; t < TOKENS; ++t) {
                if (t0 + t < m) sum[t] += float(a[(long long)(t0 + t) * k + p]) * bv;
            }
        }
#pragma unroll
        for (int t = 0; t < TOKENS; ++t) {
            if (t0 + t < m) {
                float s = sum[t];
                for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
                if (lane == 0) {
                    c[(long long)(t0 + t) * n + feature] = __float2bfloat16(s * a_scale[t0 + t] * b_scale[feature]);
                }
            }
        }
    }
}
""",
    "fp8_gemm_kernel",
)


def solve(
    a: cp.ndarray, b: cp.ndarray, a_scale: cp.ndarray, b_scale: cp.ndarray, c: cp.ndarray, m: int, n: int, k: int
) -> None:
    warps_per_block = 8
    blocks = (n + warps_per_block - 1) // warps_per_block
    args = (a, b, a_scale, b_scale, c, cp.int32(m), cp.int32(n), cp.int32(k))
    fp8_gemm_kernel((blocks,), (32 * warps_per_block,), args)
