// Rung 1: the textbook tree. Each 256-thread block loads one element per thread into shared
// memory and halves the number of active threads each step (sequential addressing, a barrier
// per step); thread 0 writes the block's sum. The same kernel then reduces the block sums, and
// again, until one block is left, which writes out[0]: no atomics, deterministic.
#include <cuda_runtime.h>

constexpr int THREADS = 256;

__global__ void tree_sum(const float* __restrict__ in, float* __restrict__ sums, int count) {
    __shared__ float buf[THREADS];
    const long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
    buf[threadIdx.x] = i < count ? in[i] : 0.0f;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) buf[threadIdx.x] += buf[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = buf[0];
}

// Two buffers of block sums, used in turn by the passes; grown when a larger n arrives.
static float* scratch = nullptr;
static size_t scratch_floats = 0;

extern "C" void solve(const float* x, float* out, int n) {
    const int first_blocks = (n + THREADS - 1) / THREADS;
    const size_t need = 2 * (size_t)first_blocks;
    if (need > scratch_floats) {
        if (scratch) cudaFree(scratch);
        cudaMalloc(&scratch, need * sizeof(float));
        scratch_floats = need;
    }
    float* buffers[2] = {scratch, scratch + first_blocks};
    const float* src = x;
    int count = n;
    for (int pass = 0;; ++pass) {
        const int blocks = (count + THREADS - 1) / THREADS;
        float* dst = blocks == 1 ? out : buffers[pass % 2];
        tree_sum<<<blocks, THREADS>>>(src, dst, count);
        if (blocks == 1) break;
        src = dst;
        count = blocks;
    }
}
