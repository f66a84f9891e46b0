"""Accepted: one block per row with shared-memory trees (mean, then centred variance), as a
RawKernel."""

import cupy as cp

_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void layernorm_rows(const float* x, const float* w, const float* b, float* y, int n) {
    __shared__ float tree[256];
    const float* xr = x + (long long)blockIdx.x * n;
    float* yr = y + (long long)blockIdx.x * n;
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += 256) s += xr[j];
    tree[threadIdx.x] = s;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) tree[threadIdx.x] += tree[threadIdx.x + stride];
        __syncthreads();
    }
    float mean = tree[0] / n;
    __syncthreads();
    float q = 0.0f;
    for (int j = threadIdx.x; j < n; j += 256) { float d = xr[j] - mean; q += d * d; }
    tree[threadIdx.x] = q;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) tree[threadIdx.x] += tree[threadIdx.x + stride];
        __syncthreads();
    }
    float rstd = rsqrtf(tree[0] / n + 1e-5f);
    for (int j = threadIdx.x; j < n; j += 256) yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
}
""",
    "layernorm_rows",
)


def solve(x: cp.ndarray, weight: cp.ndarray, bias: cp.ndarray, y: cp.ndarray, m: int, n: int) -> None:
    _kernel((m,), (256,), (x, weight, bias, y, cp.int32(n)))
