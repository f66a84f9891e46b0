"""Accepted: a warp per token (shuffle reductions, top_k rounds of a warp arg-max over (logit,
-id) pairs) and a block per expert placing its matches with a ballot scan, as RawKernels."""

import cupy as cp

_route = cp.RawKernel(
    r"""
#define kPerLane 16  // experts <= 512

extern "C" __global__ void route_warps(const float* logits, int* ids, float* weights, int tokens, int experts, int top_k) {
    int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (t >= tokens) return;
    const float* row = logits + (long long)t * experts;
    float x[kPerLane];
    float m = __int_as_float(0xff800000);
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
        int e = lane + 32 * i;
        x[i] = e < experts ? row[e] : __int_as_float(0xff800000);
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
        float bx = __int_as_float(0xff800000);
        int bid = 0x7fffffff;
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
            if (lane + 32 * i == bid) x[i] = __int_as_float(0xff800000);  // taken: never picked again
        }
        if (lane == 0) {
            ids[(long long)t * top_k + j] = bid;
            weights[(long long)t * top_k + j] = expf(bx - m) / s;
        }
    }
}
""",
    "route_warps",
)

_group = cp.RawKernel(
    r"""
extern "C" __global__ void group_kernel(const int* ids, int* counts, int* offsets, int* permutation, int total) {
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
""",
    "group_kernel",
)


def solve(logits, topk_ids, topk_weights, expert_counts, expert_offsets, permutation, tokens, experts, top_k):  # fmt: skip
    _route(
        ((tokens + 7) // 8,),
        (256,),
        (logits, topk_ids, topk_weights, cp.int32(tokens), cp.int32(experts), cp.int32(top_k)),
    )
    _group((experts,), (512,), (topk_ids, expert_counts, expert_offsets, permutation, cp.int32(tokens * top_k)))
