"""Accepted: one block per row as a RawKernel; bf16 bits widened by a shift and rounded back to
nearest-even by hand; the row's sum is recomputed for the output pass."""

import cupy as cp

_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short v) { return __uint_as_float(((unsigned)v) << 16); }
__device__ unsigned short narrow(float f) {
    unsigned u = __float_as_uint(f);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
extern "C" __global__ void add_rmsnorm_rows(const unsigned short* x, const unsigned short* r, const unsigned short* w,
                                            unsigned short* h, unsigned short* y, int n) {
    __shared__ float tree[256];
    long long base = (long long)blockIdx.x * n;
    float q = 0.0f;
    for (int j = threadIdx.x; j < n; j += 256) {
        float s = widen(x[base + j]) + widen(r[base + j]);
        h[base + j] = narrow(s);
        q += s * s;
    }
    tree[threadIdx.x] = q;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) tree[threadIdx.x] += tree[threadIdx.x + stride];
        __syncthreads();
    }
    float rstd = rsqrtf(tree[0] / n + 1e-6f);
    for (int j = threadIdx.x; j < n; j += 256) {
        float s = widen(x[base + j]) + widen(r[base + j]);
        y[base + j] = narrow(s * rstd * widen(w[j]));
    }
}
""",
    "add_rmsnorm_rows",
)


def solve(
    x: cp.ndarray, residual: cp.ndarray, weight: cp.ndarray, h: cp.ndarray, y: cp.ndarray, m: int, n: int
) -> None:
    _kernel((m,), (256,), (x, residual, weight, h, y, cp.int32(n)))
