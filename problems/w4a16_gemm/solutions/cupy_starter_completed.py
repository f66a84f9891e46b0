"""Accepted: the CuPy starter completed as its TODO says: one warp per output feature walks the
feature's packed row once; each lane unpacks a word's eight weights, dequantizes them with the
word's group zero and scale, and adds their products into one fp32 sum per token (up to 16
tokens a pass, in registers; more tokens take further passes); each sum is reduced across the
warp and lane 0 writes c[token, feature] as bf16."""

import cupy as cp

# CuPy has no bfloat16 dtype: a, scales and c arrive as uint16 arrays holding the bf16 bits;
# qweight is int32 and zeros uint8.
w4a16_kernel = cp.RawKernel(
    r"""
#include <cuda_bf16.h>
#define TOKENS 16  // tokens per pass over the row

extern "C" __global__ void w4a16_kernel(const __nv_bfloat16* a, const int* qweight, const __nv_bfloat16* scales,
                                        const unsigned char* zeros, __nv_bfloat16* c, int m, int n, int k) {
    int feature = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (feature >= n) return;
    int words = k / 8;
    int groups = k / 128;
    const int* qrow = qweight + (long long)feature * words;
    for (int t0 = 0; t0 < m; t0 += TOKENS) {
        float sum[TOKENS];
#pragma unroll
        for (int t = 0; t < TOKENS; ++t) sum[t] = 0.0f;
        for (int w = lane; w < words; w += 32) {
            unsigned int word = (unsigned int)qrow[w];
            int g = w / 16;
            float scale = __bfloat162float(scales[(long long)feature * groups + g]);
            int zero = zeros[(long long)feature * groups + g];
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                float wv = (float)((int)((word >> (4 * i)) & 0xF) - zero) * scale;
#pragma unroll
                for (int t = 0; t < TOKENS; ++t) {
                    if (t0 + t < m) sum[t] += __bfloat162float(a[(long long)(t0 + t) * k + 8 * w + i]) * wv;
                }
            }
        }
#pragma unroll
        for (int t = 0; t < TOKENS; ++t) {
            if (t0 + t < m) {
                float s = sum[t];
                for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
                if (lane == 0) c[(long long)(t0 + t) * n + feature] = __float2bfloat16(s);
            }
        }
    }
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
