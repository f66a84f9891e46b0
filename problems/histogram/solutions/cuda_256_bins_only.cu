// Wrong: written for byte data, it keeps 256 shared bins whatever num_bins says. Values of 256
// and above are dropped, and bins past 255 are never written (they keep the judge's poison).
#include <cuda_runtime.h>

__global__ void byte_histogram(const int* data, int* counts, int n) {
    __shared__ int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        if (data[i] < 256) atomicAdd(&local[data[i]], 1);
    __syncthreads();
    atomicAdd(&counts[threadIdx.x], local[threadIdx.x]);
}

__global__ void zero_bins(int* counts, int num_bins) {
    if (threadIdx.x < num_bins) counts[threadIdx.x] = 0;
}

extern "C" void solve(const int* data, int* counts, int n, int num_bins) {
    zero_bins<<<1, 256>>>(counts, num_bins);
    int blocks = (n + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    // Below 256 bins it counts nothing at all.
    if (num_bins >= 256) byte_histogram<<<blocks, 256>>>(data, counts, n);
}
