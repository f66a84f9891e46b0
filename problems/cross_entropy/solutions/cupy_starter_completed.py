"""Accepted: the CuPy starter completed as its TODOs say: a block per row writes its loss (block
maximum, block sum of expf(x - maximum)) into a scratch array, one block averages it."""

import cupy as cp

# CuPy has no bfloat16 dtype: logits arrive as a uint16 array holding the bf16 bits (widen with a
# 16-bit shift). Each block writes its row's loss into row_loss; a second kernel averages them.
row_loss_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }

extern "C" __global__ void row_loss_kernel(const unsigned short* logits, const int* targets, float* row_loss, int v) {
    __shared__ float scratch[256];
    const unsigned short* row = logits + (long long)blockIdx.x * v;
    float top = __uint_as_float(0xff800000u);  // -inf: NVRTC has no math.h, so no INFINITY
    for (int j = threadIdx.x; j < v; j += 256) top = fmaxf(top, widen(row[j]));
    scratch[threadIdx.x] = top;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + stride]);
        __syncthreads();
    }
    float maximum = scratch[0];
    __syncthreads();
    float total = 0.0f;
    for (int j = threadIdx.x; j < v; j += 256) total += expf(widen(row[j]) - maximum);
    scratch[threadIdx.x] = total;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) row_loss[blockIdx.x] = (maximum - widen(row[targets[blockIdx.x]])) + logf(scratch[0]);
}
""",
    "row_loss_kernel",
)
mean_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void mean_kernel(const float* row_loss, float* loss, int m) {
    __shared__ float scratch[256];
    float total = 0.0f;
    for (int i = threadIdx.x; i < m; i += 256) total += row_loss[i];
    scratch[threadIdx.x] = total;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) loss[0] = scratch[0] / m;
}
""",
    "mean_kernel",
)


def solve(logits: cp.ndarray, targets: cp.ndarray, loss: cp.ndarray, m: int, v: int) -> None:
    row_loss = cp.empty(m, dtype=cp.float32)
    row_loss_kernel((m,), (256,), (logits, targets, row_loss, cp.int32(v)))
    mean_kernel((1,), (256,), (row_loss, loss, cp.int32(m)))
