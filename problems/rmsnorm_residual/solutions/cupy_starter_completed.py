"""Accepted: the CuPy starter completed as its TODO says: one block per row; s = x + residual in
fp32 (bf16 bits widened by a 16-bit shift) is stored as h and its squares summed, a shared-memory
tree reduces them, then a second loop recomputes s and stores y = s * rsqrtf(sum / n + EPS) *
weight, each store rounded to nearest-even bf16 by hand."""

import cupy as cp

# CuPy has no bfloat16 dtype: the tensors arrive as uint16 arrays holding the bf16 bits (widen
# with a 16-bit shift, round back to nearest-even by hand).
add_rmsnorm_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short bits) { return __uint_as_float((unsigned int)bits << 16); }

// Round to the nearest bf16, ties to even: add just under half of the dropped part's range (plus
// one when the kept part is odd) and drop the low 16 bits.
__device__ unsigned short narrow(float value) {
    unsigned int bits = __float_as_uint(value);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return (unsigned short)(bits >> 16);
}

extern "C" __global__ void add_rmsnorm_kernel(const unsigned short* x, const unsigned short* residual,
                                              const unsigned short* weight, unsigned short* h, unsigned short* y,
                                              int n) {
    __shared__ float partial[256];
    long long base = (long long)blockIdx.x * n;
    float squares = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        float s = widen(x[base + j]) + widen(residual[base + j]);
        h[base + j] = narrow(s);
        squares += s * s;
    }
    partial[threadIdx.x] = squares;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        }
        __syncthreads();
    }
    float rstd = rsqrtf(partial[0] / n + 1e-6f);
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        float s = widen(x[base + j]) + widen(residual[base + j]);
        y[base + j] = narrow(s * rstd * widen(weight[j]));
    }
}
""",
    "add_rmsnorm_kernel",
)


def solve(
    x: cp.ndarray, residual: cp.ndarray, weight: cp.ndarray, h: cp.ndarray, y: cp.ndarray, m: int, n: int
) -> None:
    add_rmsnorm_kernel((m,), (256,), (x, residual, weight, h, y, cp.int32(n)))
