"""Accepted: the CuPy starter completed as its TODO says: grid-stride per-thread partial sums,
warp shuffles, the warps' sums through shared memory, one atomicAdd per block onto the zeroed
out[0]."""

import cupy as cp

sum_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void sum_kernel(const float* x, float* out, int n) {
    float partial = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        partial += x[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        partial += __shfl_down_sync(0xffffffff, partial, offset);
    }
    __shared__ float warp_partials[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    if (lane == 0) {
        warp_partials[warp] = partial;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float block_total = 0.0f;
        for (int w = 0; w < blockDim.x / 32; ++w) {
            block_total += warp_partials[w];
        }
        atomicAdd(out, block_total);
    }
}
""",
    "sum_kernel",
)


def solve(x: cp.ndarray, out: cp.ndarray, n: int) -> None:
    out.fill(0)  # out holds NaN on entry; atomics need a zero to start from
    threads = 256
    blocks = 264
    sum_kernel((blocks,), (threads,), (x, out, cp.int32(n)))
