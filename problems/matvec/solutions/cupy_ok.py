"""Accepted: one warp per row as a RawKernel; bf16 bits widened to float by a 16-bit shift."""

import cupy as cp

_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }
extern "C" __global__ void matvec_rows(const unsigned short* w, const unsigned short* x, float* y, int m, int k) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= m) return;
    const unsigned short* wr = w + (long long)row * k;
    float acc = 0.0f;
    for (int p = lane; p < k; p += 32) acc = fmaf(widen(wr[p]), widen(x[p]), acc);
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
}
""",
    "matvec_rows",
)


def solve(w: cp.ndarray, x: cp.ndarray, y: cp.ndarray, m: int, k: int) -> None:
    _kernel(((m + 7) // 8,), (256,), (w, x, y, cp.int32(m), cp.int32(k)))
