"""Accepted: a RawKernel with 32x32 shared-memory tiles; the bf16 bits (uint16 arrays in CuPy)
are widened to float by a 16-bit shift and rounded back to nearest-even by hand."""

import cupy as cp

_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }
__device__ unsigned short narrow(float f) {
    unsigned u = __float_as_uint(f);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
extern "C" __global__ void gemm32(const unsigned short* a, const unsigned short* b, unsigned short* c,
                                  int m, int n, int k) {
    __shared__ float ta[32][33];
    __shared__ float tb[32][33];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += 32) {
        ta[ty][tx] = (row < m && k0 + tx < k) ? widen(a[(long long)row * k + k0 + tx]) : 0.0f;
        tb[ty][tx] = (k0 + ty < k && col < n) ? widen(b[(long long)(k0 + ty) * n + col]) : 0.0f;
        __syncthreads();
        for (int p = 0; p < 32; ++p) acc = fmaf(ta[ty][p], tb[p][tx], acc);
        __syncthreads();
    }
    if (row < m && col < n) c[(long long)row * n + col] = narrow(acc);
}
""",
    "gemm32",
)


def solve(a: cp.ndarray, b: cp.ndarray, c: cp.ndarray, m: int, n: int, k: int) -> None:
    grid = ((n + 31) // 32, (m + 31) // 32)
    _kernel(grid, (32, 32), (a, b, c, cp.int32(m), cp.int32(n), cp.int32(k)))
