// Accepted: a warp per token: lane l holds experts l, l + 32, ... (up to 16 of them: experts <= 512);
// the row's maximum and sum of exponentials are warp shuffles, and each of the top_k rounds is a
// warp arg-max over (logit, -id) pairs, after which the owner lane drops the winner. Grouping: a
// block per expert counts, then places its matches in flat order with a ballot scan.
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

__global__ void group_kernel(const int* ids, int* counts, int* offsets, int* permutation, int total) {
    int e = blockIdx.x;
    __shared__ int count, below;
    __shared__ int warp_totals[32];
    if (threadIdx.x == 0) {
        count = 0;
        below = 0;
    }
    __syncthreads();
    int my_count = 0, my_below = 0;
    for (int i = threadIdx.x; i < total; i += blockDim.x) {
        int id = ids[i];
        my_count += id == e;
        my_below += id < e;
    }
    atomicAdd(&count, my_count);
    atomicAdd(&below, my_below);
    __syncthreads();
    if (threadIdx.x == 0) {
        counts[e] = count;
        offsets[e] = below;
    }
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;
    int seen = 0;
    for (int start = 0; start < total; start += blockDim.x) {
        int i = start + threadIdx.x;
        bool match = i < total && ids[i] == e;
        unsigned ballot = __ballot_sync(0xffffffffu, match);
        if (lane == 0) warp_totals[warp] = __popc(ballot);
        __syncthreads();
        int before = 0, tile = 0;
        for (int w = 0; w < warps; ++w) {
            if (w < warp) before += warp_totals[w];
            tile += warp_totals[w];
        }
        if (match) permutation[below + seen + before + __popc(ballot & ((1u << lane) - 1u))] = i;
        seen += tile;
        __syncthreads();
    }
}

extern "C" void solve(const float* logits, int* topk_ids, float* topk_weights, int* expert_counts,
                      int* expert_offsets, int* permutation, int tokens, int experts, int top_k) {
    route_warps<<<(tokens + 7) / 8, 256>>>(logits, topk_ids, topk_weights, tokens, experts, top_k);
    group_kernel<<<experts, 512>>>(topk_ids, expert_counts, expert_offsets, permutation, tokens * top_k);
}
