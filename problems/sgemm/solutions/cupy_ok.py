"""Accepted: 32x32 shared-memory tiles as a RawKernel."""

import cupy as cp

_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void sgemm_tiles(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float ta[32][32];
    __shared__ float tb[32][33];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += 32) {
        ta[ty][tx] = (row < m && k0 + tx < k) ? a[(long long)row * k + k0 + tx] : 0.0f;
        tb[ty][tx] = (k0 + ty < k && col < n) ? b[(long long)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < 32; ++p) acc = fmaf(ta[ty][p], tb[p][tx], acc);
        __syncthreads();
    }
    if (row < m && col < n) c[(long long)row * n + col] = acc;
}
""",
    "sgemm_tiles",
)


def solve(a: cp.ndarray, b: cp.ndarray, c: cp.ndarray, m: int, n: int, k: int) -> None:
    blocks = ((n + 31) // 32, (m + 31) // 32)
    _kernel(blocks, (32, 32), (a, b, c, cp.int32(m), cp.int32(n), cp.int32(k)))
