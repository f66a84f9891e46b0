// Accepted: the CUDA starter completed as its TODO says: thread (threadIdx.y, threadIdx.x)
// computes c[row][col] with fp32 FMAs over k on the CUDA cores.
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void sgemm_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (int p = 0; p < k; ++p) {
            acc = fmaf(a[row * k + p], b[p * n + col], acc);
        }
        c[row * n + col] = acc;
    }
}

// a, b, c are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const float* a, const float* b, float* c, int m, int n, int k) {
    dim3 threads(TILE, TILE);
    dim3 blocks((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    sgemm_kernel<<<blocks, threads>>>(a, b, c, m, n, k);
}
