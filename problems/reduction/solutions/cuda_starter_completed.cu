// Accepted: the CUDA starter completed as its TODOs say: a grid-stride loop into a register,
// a warp reduction with __shfl_xor_sync, the warps' sums through shared memory, one atomicAdd
// per block onto out[0], zeroed first with cudaMemsetAsync.
#include <cuda_runtime.h>

// Each block sums a slice of x and contributes its partial sum to out[0].
__global__ void sum_kernel(const float* x, float* out, int n) {
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        sum += x[i];
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_xor_sync(0xffffffff, sum, offset);
    }
    __shared__ float warp_sums[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    if (lane == 0) {
        warp_sums[warp] = sum;
    }
    __syncthreads();
    if (warp == 0) {
        int warps = blockDim.x / 32;
        sum = lane < warps ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1) {
            sum += __shfl_xor_sync(0xffffffff, sum, offset);
        }
        if (lane == 0) {
            atomicAdd(out, sum);
        }
    }
}

// x and out are device pointers. Launch on the default stream; do not synchronize.
// out[0] holds NaN when solve is called: if you accumulate with atomics, zero it first
// (cudaMemsetAsync(out, 0, sizeof(float)) or a tiny kernel).
extern "C" void solve(const float* x, float* out, int n) {
    int threads = 256;
    int blocks = 264;
    cudaMemsetAsync(out, 0, sizeof(float));
    sum_kernel<<<blocks, threads>>>(x, out, n);
}
