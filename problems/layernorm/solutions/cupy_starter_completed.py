"""Accepted: the CuPy starter completed as its TODO says: one block per row; a shared-memory tree
gives the mean, then the variance of x - mean (divided by n); each thread normalises, scales and
shifts its columns."""

import cupy as cp

layernorm_kernel = cp.RawKernel(
    r"""
// The total of every thread's v over the block (blockDim.x a power of two, at most 256).
__device__ float block_total(float v) {
    __shared__ float partial[256];
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        }
        __syncthreads();
    }
    float total = partial[0];
    __syncthreads();  // every thread has read the total before the next call overwrites it
    return total;
}

extern "C" __global__ void layernorm_kernel(const float* x, const float* weight, const float* bias, float* y, int n) {
    const float* xr = x + (long long)blockIdx.x * n;
    float* yr = y + (long long)blockIdx.x * n;
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        s += xr[j];
    }
    float mean = block_total(s) / n;
    float q = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        float d = xr[j] - mean;
        q += d * d;
    }
    float var = block_total(q) / n;
    float rstd = rsqrtf(var + 1e-5f);
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        yr[j] = (xr[j] - mean) * rstd * weight[j] + bias[j];
    }
}
""",
    "layernorm_kernel",
)


def solve(x: cp.ndarray, weight: cp.ndarray, bias: cp.ndarray, y: cp.ndarray, m: int, n: int) -> None:
    layernorm_kernel((m,), (256,), (x, weight, bias, y, cp.int32(n)))
