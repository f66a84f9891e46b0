"""Accepted: one launch over a flat list of 64-row tiles (a block per tile of one expert and 64
output columns; warp 0 finds the tile's expert with a shuffle scan of the tiles per expert).
The a and w slabs are staged in shared memory k-major, and each of 256 threads keeps a 4 x 4
block of fp32 sums (rows ty + 16 i, columns tx + 16 j)."""

import cupy as cp

grouped_gemm_kernel = cp.RawKernel(
    r"""
#include <cuda_bf16.h>
#define BM 64
#define BN 64
#define BK 16

__device__ void find_tile(const int* offsets, int experts, int tile, int* s_expert, int* s_first) {
    int lane = threadIdx.x;
    int before = 0;
    for (int e0 = 0; e0 < experts; e0 += 32) {
        int e = e0 + lane;
        int t = e < experts ? (offsets[e + 1] - offsets[e] + BM - 1) / BM : 0;
        int incl = t;
        for (int d = 1; d < 32; d *= 2) {
            int v = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += v;
        }
        int end_tiles = before + incl;
        unsigned hit = __ballot_sync(0xffffffffu, e < experts && end_tiles > tile);
        if (hit) {
            if (lane == __ffs(hit) - 1) {
                *s_expert = e;
                *s_first = end_tiles - t;
            }
            return;
        }
        before = __shfl_sync(0xffffffffu, end_tiles, 31);
    }
}

extern "C" __global__ void grouped_gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* w,
                                               const int* offsets, __nv_bfloat16* c, int experts, int n, int k) {
    __shared__ float As[BK][BM + 4];  // As[p][r] = a[row0 + r, k0 + p]
    __shared__ float Bs[BK][BN + 4];  // Bs[p][j] = w[e, col0 + j, k0 + p]
    __shared__ int s_expert, s_first;
    int tid = threadIdx.x;
    if (tid == 0) s_expert = -1;
    __syncthreads();
    if (tid < 32) find_tile(offsets, experts, blockIdx.x, &s_expert, &s_first);
    __syncthreads();
    int e = s_expert;
    if (e < 0) return;
    int end = offsets[e + 1];
    int row0 = offsets[e] + (blockIdx.x - s_first) * BM;
    int col0 = blockIdx.y * BN;
    const __nv_bfloat16* w_e = w + (long long)e * n * k;
    int ty = tid / 16, tx = tid % 16;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < k; k0 += BK) {
        for (int i = tid; i < BM * BK; i += 256) {
            int r = i / BK, p = i % BK;
            int row = row0 + r, kk = k0 + p;
            As[p][r] = (row < end && kk < k) ? __bfloat162float(a[(long long)row * k + kk]) : 0.0f;
        }
        for (int i = tid; i < BN * BK; i += 256) {
            int j = i / BK, p = i % BK;
            int col = col0 + j, kk = k0 + p;
            Bs[p][j] = (col < n && kk < k) ? __bfloat162float(w_e[(long long)col * k + kk]) : 0.0f;
        }
        __syncthreads();
        for (int p = 0; p < BK; ++p) {
            float av[4], bv[4];
            for (int i = 0; i < 4; ++i) av[i] = As[p][ty + 16 * i];
            for (int j = 0; j < 4; ++j) bv[j] = Bs[p][tx + 16 * j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
        int row = row0 + ty + 16 * i;
        for (int j = 0; j < 4; ++j) {
            int col = col0 + tx + 16 * j;
            if (row < end && col < n) c[(long long)row * n + col] = __float2bfloat16(acc[i][j]);
        }
    }
}
""",
    "grouped_gemm_kernel",
)


def solve(a, w, expert_offsets, c, tokens, experts, active_experts, n, k):  # fmt: skip
    max_tiles = (tokens + 63) // 64 + active_experts  # each active expert adds at most one partial tile
    grid = (max_tiles, (n + 63) // 64)
    grouped_gemm_kernel(grid, (256,), (a, w, expert_offsets, c, cp.int32(experts), cp.int32(n), cp.int32(k)))
