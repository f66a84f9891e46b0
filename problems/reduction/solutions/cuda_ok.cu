// Accepted: grid-stride partial sums, warp shuffles, one atomicAdd per block onto a zeroed out.
#include <cuda_runtime.h>

__global__ void sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float warp_sums[32];
    float acc = 0.0f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        acc += x[i];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lane == 0) atomicAdd(out, acc);
    }
}

extern "C" void solve(const float* x, float* out, int n) {
    cudaMemsetAsync(out, 0, sizeof(float));
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (blocks > 1024) blocks = 1024;
    sum_kernel<<<blocks, threads>>>(x, out, n);
}
