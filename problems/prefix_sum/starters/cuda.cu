#include <cuda_runtime.h>

__global__ void scan_kernel(const float* x, float* y, int n) {
    // TODO: scan this block's tile in shared memory; then combine the tiles
}

// x and y are device pointers. Launch on the default stream; do not synchronize. Scratch
// memory may be allocated here (cudaMallocAsync on the default stream, freed the same way).
extern "C" void solve(const float* x, float* y, int n) {
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    scan_kernel<<<blocks, threads>>>(x, y, n);
}
