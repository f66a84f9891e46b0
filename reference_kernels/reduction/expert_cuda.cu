// Expert CUDA solution for reduction (obeys the submission contract): one launch, deterministic.
//
// A persistent grid (4 blocks of 512 threads per SM) reads the input with 16-byte __ldcg loads,
// four float4 per thread per step into four independent fp32 accumulators (64 bytes in flight
// per thread). Each block reduces with warp shuffles and writes one partial. The last block to
// finish (a fenced atomic ticket) adds the partials in index order, so the result does not depend
// on which block finished first, and resets the ticket for the next call.
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kThreads = 512;
constexpr int kBlocksPerSm = 4;
constexpr int kMaxBlocks = 4096;

__device__ float g_partials[kMaxBlocks];
__device__ unsigned int g_ticket = 0;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// Sum over the block; the result is valid in thread 0.
__device__ float block_sum(float v) {
    __shared__ float warp_totals[kThreads / 32];
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kThreads / 32 ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

__global__ void __launch_bounds__(kThreads) sum_kernel(const float* __restrict__ x, float* __restrict__ out,
                                                        long long n, bool vectorized) {
    const long long stride = (long long)gridDim.x * kThreads;
    const long long first = (long long)blockIdx.x * kThreads + threadIdx.x;
    float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    long long scalar_from = 0;
    if (vectorized) {
        const float4* x4 = reinterpret_cast<const float4*>(x);
        const long long n4 = n / 4;
        long long i = first;
        for (; i + 3 * stride < n4; i += 4 * stride) {
            float4 v0 = __ldcg(x4 + i);
            float4 v1 = __ldcg(x4 + i + stride);
            float4 v2 = __ldcg(x4 + i + 2 * stride);
            float4 v3 = __ldcg(x4 + i + 3 * stride);
            acc0 += (v0.x + v0.y) + (v0.z + v0.w);
            acc1 += (v1.x + v1.y) + (v1.z + v1.w);
            acc2 += (v2.x + v2.y) + (v2.z + v2.w);
            acc3 += (v3.x + v3.y) + (v3.z + v3.w);
        }
        for (; i < n4; i += stride) {
            float4 v = __ldcg(x4 + i);
            acc0 += (v.x + v.y) + (v.z + v.w);
        }
        scalar_from = n4 * 4;
    }
    for (long long i = scalar_from + first; i < n; i += stride) acc1 += x[i];

    float total = block_sum((acc0 + acc1) + (acc2 + acc3));
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        g_partials[blockIdx.x] = total;
        __threadfence();  // publish the partial before taking a ticket
        unsigned int ticket = atomicAdd(&g_ticket, 1u);
        is_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    float v = 0.0f;
    for (int i = threadIdx.x; i < (int)gridDim.x; i += kThreads) v += __ldcg(&g_partials[i]);
    v = block_sum(v);
    if (threadIdx.x == 0) {
        out[0] = v;
        g_ticket = 0;
    }
}

int blocks_for(long long n) {
    static int sm_count = 0;
    if (sm_count == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
        if (sm_count <= 0) sm_count = 132;
    }
    long long wanted = (n + (long long)kThreads * 16 - 1) / ((long long)kThreads * 16);
    long long cap = (long long)sm_count * kBlocksPerSm;
    if (cap > kMaxBlocks) cap = kMaxBlocks;
    if (wanted > cap) wanted = cap;
    return wanted < 1 ? 1 : (int)wanted;
}

}  // namespace

extern "C" void solve(const float* x, float* out, int n) {
    bool vectorized = (reinterpret_cast<uintptr_t>(x) & 15) == 0;
    sum_kernel<<<blocks_for(n), kThreads>>>(x, out, (long long)n, vectorized);
}
