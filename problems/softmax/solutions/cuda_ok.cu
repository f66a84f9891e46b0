// Accepted: one 256-thread block per row, three passes (max, sum of exponentials, write).
#include <cuda_runtime.h>
#include <math_constants.h>

__device__ float block_reduce(float v, bool is_max) {
    __shared__ float part[32];
    for (int o = 16; o > 0; o >>= 1) {
        float other = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, other) : v + other;
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) part[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? part[lane] : (is_max ? -CUDART_INF_F : 0.0f);
    for (int o = 16; o > 0; o >>= 1) {
        float other = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, other) : v + other;
    }
    __syncthreads();
    return v;
}

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    const float* xr = x + (long long)blockIdx.x * n;
    float* yr = y + (long long)blockIdx.x * n;
    float mx = -CUDART_INF_F;
    for (int j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, xr[j]);
    mx = block_reduce(mx, true);
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) s += expf(xr[j] - mx);
    float inv = 1.0f / block_reduce(s, false);
    for (int j = threadIdx.x; j < n; j += blockDim.x) yr[j] = expf(xr[j] - mx) * inv;
}

extern "C" void solve(const float* x, float* y, int m, int n) {
    softmax_kernel<<<m, 256>>>(x, y, n);
}
