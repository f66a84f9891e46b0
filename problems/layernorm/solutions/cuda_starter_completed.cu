// Accepted: the CUDA starter completed as its TODO says: block blockIdx.x normalises row
// blockIdx.x; a shared-memory tree reduces the sum (mean), then the sum of (x - mean)^2
// (variance, divided by n), then each thread writes its columns of the output.
#include <cuda_runtime.h>

constexpr float EPS = 1e-5f;

// The sum of every thread's v over the block (blockDim.x a power of two, at most 256).
__device__ float block_sum(float v) {
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

__global__ void layernorm_kernel(const float* x, const float* weight, const float* bias, float* y, int n) {
    const float* xr = x + (long long)blockIdx.x * n;
    float* yr = y + (long long)blockIdx.x * n;
    float sum = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        sum += xr[j];
    }
    float mean = block_sum(sum) / n;
    float squares = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        float d = xr[j] - mean;
        squares += d * d;
    }
    float var = block_sum(squares) / n;
    float rstd = rsqrtf(var + EPS);
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        yr[j] = (xr[j] - mean) * rstd * weight[j] + bias[j];
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const float* x, const float* weight, const float* bias, float* y, int m, int n) {
    layernorm_kernel<<<m, 256>>>(x, weight, bias, y, n);
}
