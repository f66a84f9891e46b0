#include <cuda_runtime.h>

__global__ void histogram_kernel(const int* data, int* counts, int n, int num_bins) {
    // TODO: count the values (counts is poisoned by the judge: zero it first)
}

// data and counts are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const int* data, int* counts, int n, int num_bins) {
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    histogram_kernel<<<blocks, threads>>>(data, counts, n, num_bins);
}
