// Accepted: 32x32 shared-memory tiles of a and b, one output per thread, fp32 FMAs.
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void sgemm_tiles(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                            int n, int k) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += TILE) {
        ta[ty][tx] = (row < m && k0 + tx < k) ? a[(long long)row * k + k0 + tx] : 0.0f;
        tb[ty][tx] = (k0 + ty < k && col < n) ? b[(long long)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < TILE; ++p) acc = fmaf(ta[ty][p], tb[p][tx], acc);
        __syncthreads();
    }
    if (row < m && col < n) c[(long long)row * n + col] = acc;
}

extern "C" void solve(const float* a, const float* b, float* c, int m, int n, int k) {
    dim3 threads(TILE, TILE);
    dim3 blocks((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    sgemm_tiles<<<blocks, threads>>>(a, b, c, m, n, k);
}
