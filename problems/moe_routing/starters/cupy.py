import cupy as cp

# logits and topk_weights are float32 arrays; the other tensors are int32.
route_kernel = cp.RawKernel(
    r"""
// One thread per token.
extern "C" __global__ void route_kernel(const float* logits, int* ids, float* weights, int tokens, int experts, int top_k) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tokens) return;
    const float* row = logits + (long long)t * experts;
    // TODO: the row's maximum m and s = the sum of expf(x - m) over the row.
    // TODO: top_k rounds. Order the experts by (logit descending, id ascending); round j picks the
    // first expert in that order that comes after round j - 1's pick (x < prev_x, or x == prev_x
    // and id > prev_id). Write its id to ids[t * top_k + j] and expf(x - m) / s to weights[...].
}
""",
    "route_kernel",
)

group_kernel = cp.RawKernel(
    r"""
// One block per expert e; total = tokens * top_k flat assignments.
extern "C" __global__ void group_kernel(const int* ids, int* counts, int* offsets, int* permutation, int total) {
    int e = blockIdx.x;
    // TODO: count the assignments to e and to the ids below e (a block reduction, e.g. atomicAdd
    // on shared counters); store counts[e] and offsets[e].
    // TODO: walk ids in order, blockDim.x at a time: rank each match among the earlier matches
    // (__ballot_sync and __popc in a warp, the warps' totals in shared memory), write its flat index
    // to permutation[offsets[e] + matches before it]; carry the tile's total to the next tile.
}
""",
    "group_kernel",
)


def solve(logits, topk_ids, topk_weights, expert_counts, expert_offsets, permutation, tokens, experts, top_k):  # fmt: skip
    route_kernel(
        ((tokens + 127) // 128,),
        (128,),
        (logits, topk_ids, topk_weights, cp.int32(tokens), cp.int32(experts), cp.int32(top_k)),
    )
    group_kernel((experts,), (256,), (topk_ids, expert_counts, expert_offsets, permutation, cp.int32(tokens * top_k)))
