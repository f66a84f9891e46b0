"""Accepted: a RawKernel with one block per row and shared-memory reductions."""

import cupy as cp

_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void row_softmax(const float* x, float* y, int n) {
    __shared__ float tree[256];
    const float* xr = x + (long long)blockIdx.x * n;
    float* yr = y + (long long)blockIdx.x * n;
    float mx = -3.402823466e38f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, xr[j]);
    tree[threadIdx.x] = mx;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) tree[threadIdx.x] = fmaxf(tree[threadIdx.x], tree[threadIdx.x + s]);
        __syncthreads();
    }
    mx = tree[0];
    __syncthreads();
    float total = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) total += expf(xr[j] - mx);
    tree[threadIdx.x] = total;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) tree[threadIdx.x] += tree[threadIdx.x + s];
        __syncthreads();
    }
    float inv = 1.0f / tree[0];
    for (int j = threadIdx.x; j < n; j += blockDim.x) yr[j] = expf(xr[j] - mx) * inv;
}
""",
    "row_softmax",
)


def solve(x: cp.ndarray, y: cp.ndarray, m: int, n: int) -> None:
    _kernel((m,), (256,), (x, y, cp.int32(n)))
