// Wrong: the grouping by global atomics. Counts come from atomicAdd, the offsets from a serial
// scan, and each assignment claims its slot with pos = offsets[e] + atomicAdd(&cursor[e], 1).
// Every expert's group is in the right place and holds the right assignments, but in whatever order
// the threads' atomics happened to run, not in token order: the permutation must be stable.
// (The routing itself is cuda_ok.cu's, and right.)
#include <cuda_runtime.h>
#include <math.h>
#include <limits.h>

constexpr int kPerLane = 16;

__global__ void route_warps(const float* logits, int* ids, float* weights, int tokens, int experts, int top_k) {
    int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (t >= tokens) return;
    const float* row = logits + (long long)t * experts;
    float x[kPerLane];
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
        int e = lane + 32 * i;
        x[i] = e < experts ? row[e] : -INFINITY;
        m = fmaxf(m, x[i]);
    }
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
        if (lane + 32 * i < experts) s += expf(x[i] - m);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int j = 0; j < top_k; ++j) {
        float bx = -INFINITY;
        int bid = INT_MAX;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            int e = lane + 32 * i;
            if (e < experts && (x[i] > bx || (x[i] == bx && e < bid))) {
                bx = x[i];
                bid = e;
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            float ox = __shfl_xor_sync(0xffffffffu, bx, o);
            int oid = __shfl_xor_sync(0xffffffffu, bid, o);
            if (ox > bx || (ox == bx && oid < bid)) {
                bx = ox;
                bid = oid;
            }
        }
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            if (lane + 32 * i == bid) x[i] = -INFINITY;  // taken: never picked again
        }
        if (lane == 0) {
            ids[(long long)t * top_k + j] = bid;
            weights[(long long)t * top_k + j] = expf(bx - m) / s;
        }
    }
}

__global__ void count_kernel(const int* ids, int* counts, int total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) atomicAdd(&counts[ids[i]], 1);
}

// One thread: offsets from the counts, then the counts reset to serve as cursors.
__global__ void offsets_kernel(int* counts, int* offsets, int experts) {
    int run = 0;
    for (int e = 0; e < experts; ++e) {
        offsets[e] = run;
        run += counts[e];
    }
}

__global__ void scatter_kernel(const int* ids, int* cursor, const int* offsets, int* permutation, int total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) {
        int e = ids[i];
        permutation[offsets[e] + atomicAdd(&cursor[e], 1)] = i;
    }
}

extern "C" void solve(const float* logits, int* topk_ids, float* topk_weights, int* expert_counts,
                      int* expert_offsets, int* permutation, int tokens, int experts, int top_k) {
    int total = tokens * top_k;
    route_warps<<<(tokens + 7) / 8, 256>>>(logits, topk_ids, topk_weights, tokens, experts, top_k);
    cudaMemsetAsync(expert_counts, 0, experts * sizeof(int));
    count_kernel<<<(total + 255) / 256, 256>>>(topk_ids, expert_counts, total);
    offsets_kernel<<<1, 1>>>(expert_counts, expert_offsets, experts);
    cudaMemsetAsync(expert_counts, 0, experts * sizeof(int));  // cursors; they end equal to the counts
    scatter_kernel<<<(total + 255) / 256, 256>>>(topk_ids, expert_counts, expert_offsets, permutation, total);
}
