// Compile error: atomicAdd through a pointer to const int.
#include <cuda_runtime.h>

__global__ void histogram_kernel(const int* data, const int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[data[i]], 1);
}

extern "C" void solve(const int* data, int* counts, int n, int num_bins) {
    cudaMemsetAsync(counts, 0, sizeof(int) * (size_t)num_bins);
    histogram_kernel<<<(n + 255) / 256, 256>>>(data, counts, n);
}
