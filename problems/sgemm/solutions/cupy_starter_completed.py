"""Accepted: the CuPy starter completed as its TODO says: one output per thread, 32 x 32 tiles of
a and b through shared memory (zeros past the edges), fp32 FMAs on the CUDA cores."""

import cupy as cp

TILE = 32

sgemm_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void sgemm_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float a_tile[32][32];
    __shared__ float b_tile[32][32];
    int row = blockIdx.y * 32 + threadIdx.y;
    int col = blockIdx.x * 32 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += 32) {
        int a_col = k0 + threadIdx.x;
        int b_row = k0 + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < 32; ++p) {
            acc = fmaf(a_tile[threadIdx.y][p], b_tile[p][threadIdx.x], acc);
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        c[row * n + col] = acc;
    }
}
""",
    "sgemm_kernel",
)


def solve(a: cp.ndarray, b: cp.ndarray, c: cp.ndarray, m: int, n: int, k: int) -> None:
    blocks = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    sgemm_kernel(blocks, (TILE, TILE), (a, b, c, cp.int32(m), cp.int32(n), cp.int32(k)))
