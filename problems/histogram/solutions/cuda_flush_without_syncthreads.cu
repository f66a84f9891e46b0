// Wrong: no __syncthreads() between the counting loop and the flush. A warp that finishes its
// share early flushes bins that other warps of the block are still counting into; those later
// counts never reach the global histogram.
#include <cuda_runtime.h>

__global__ void shared_histogram(const int* data, int* counts, int n, int num_bins) {
    __shared__ int local[12288];
    for (int b = threadIdx.x; b < num_bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1);
    for (int b = threadIdx.x; b < num_bins; b += blockDim.x)
        if (local[b]) atomicAdd(&counts[b], local[b]);
}

__global__ void global_histogram(const int* data, int* counts, int n) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        atomicAdd(&counts[data[i]], 1);
}

extern "C" void solve(const int* data, int* counts, int n, int num_bins) {
    cudaMemsetAsync(counts, 0, sizeof(int) * (size_t)num_bins);
    int blocks = (n + 255) / 256;
    if (blocks > 1056) blocks = 1056;
    if (num_bins <= 12288)
        shared_histogram<<<blocks, 256>>>(data, counts, n, num_bins);
    else
        global_histogram<<<blocks, 256>>>(data, counts, n);
}
