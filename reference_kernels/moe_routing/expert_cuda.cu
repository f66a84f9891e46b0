// Expert CUDA solution for MoE routing (obeys the submission contract).
//
// A stable counting sort in three launches, each reading or writing every byte once:
//
// 1. route_and_count: a block of 8 warps routes one chunk of 32 tokens (4 per warp). A warp holds
//    a row in registers (lane l: experts l, l + 32, ..., experts <= 512), takes its maximum and sum of
//    exponentials with shuffles, and picks top_k times the warp arg-max over (logit, -id) pairs.
//    The chunk's picks are counted in a shared-memory histogram, written as row `chunk` of a
//    [chunks, experts] table.
// 2. scan_chunks: per expert, the exclusive prefix sum of its column of the table over the chunks
//    (the position of the chunk's first assignment inside the expert's group), and the column's
//    total (expert_counts). A block of 32 x 32 threads takes 32 experts, each thread a contiguous
//    segment of chunks: segment sums, a scan of the 32 segment sums in shared memory, then a second
//    pass over the segment writing the running prefix.
// 3. scatter: every block first scans expert_counts into the offsets in shared memory (block 0
//    writes expert_offsets). A warp takes one chunk: its cursor per expert starts at
//    offset[e] + base[chunk][e]; it walks the chunk's flat assignments in order, 32 at a time, ranks
//    equal experts among the 32 with __match_any_sync and a population count, writes each flat
//    index to permutation[cursor[e] + rank], and advances the cursors by the group sizes. Stable
//    by construction: chunks are placed in chunk order, and inside a chunk in flat order.
//
// Selection compares logits, never probabilities; the weights are expf(x - max) / sum in fp32.
// The bases table (4 * chunks * experts bytes) lives in a workspace kept between calls.
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>

namespace {

constexpr int kChunkTokens = 32;
constexpr int kRouteWarps = 8;
constexpr int kPerLane = 16;  // experts <= 32 * 16 = 512
constexpr int kScatterWarps = 8;

__global__ void __launch_bounds__(32 * kRouteWarps)
    route_and_count(const float* __restrict__ logits, int* __restrict__ ids, float* __restrict__ weights,
                    int* __restrict__ table, int tokens, int experts, int top_k) {
    extern __shared__ int hist[];  // experts
    for (int e = threadIdx.x; e < experts; e += blockDim.x) hist[e] = 0;
    __syncthreads();
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int chunk = blockIdx.x;
    for (int r = 0; r < kChunkTokens / kRouteWarps; ++r) {
        const int t = chunk * kChunkTokens + warp * (kChunkTokens / kRouteWarps) + r;
        if (t >= tokens) break;  // the same for the whole warp
        const float* row = logits + (long long)t * experts;
        float x[kPerLane];
        float m = -INFINITY;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            const int e = lane + 32 * i;
            x[i] = e < experts ? __ldcs(row + e) : -INFINITY;  // read once: streamed
            m = fmaxf(m, x[i]);
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) {
            if (lane + 32 * i < experts) s += expf(x[i] - m);
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        const float inv = 1.0f / s;
        for (int j = 0; j < top_k; ++j) {
            float bx = -INFINITY;
            int bid = INT_MAX;
#pragma unroll
            for (int i = 0; i < kPerLane; ++i) {
                const int e = lane + 32 * i;
                if (e < experts && x[i] > bx) {  // i ascending: equal values keep the lower id
                    bx = x[i];
                    bid = e;
                }
            }
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) {
                const float ox = __shfl_xor_sync(0xffffffffu, bx, o);
                const int oid = __shfl_xor_sync(0xffffffffu, bid, o);
                if (ox > bx || (ox == bx && oid < bid)) {
                    bx = ox;
                    bid = oid;
                }
            }
#pragma unroll
            for (int i = 0; i < kPerLane; ++i) {
                if (lane + 32 * i == bid) x[i] = -INFINITY;
            }
            if (lane == 0) {
                ids[(long long)t * top_k + j] = bid;
                weights[(long long)t * top_k + j] = expf(bx - m) * inv;
                atomicAdd(&hist[bid], 1);
            }
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < experts; e += blockDim.x) table[(long long)chunk * experts + e] = hist[e];
}

// blockDim = (32, 32): threadIdx.x picks the expert of the block's 32, threadIdx.y the segment.
__global__ void __launch_bounds__(1024)
    scan_chunks(int* __restrict__ table, int* __restrict__ counts, int chunks, int experts) {
    __shared__ int segment_sum[32][33];
    const int e = blockIdx.x * 32 + threadIdx.x;
    const int seg = threadIdx.y;
    const int per = (chunks + 31) / 32;
    const int c0 = min(chunks, seg * per);
    const int c1 = min(chunks, c0 + per);
    int sum = 0;
    if (e < experts) {
        for (int c = c0; c < c1; ++c) sum += table[(long long)c * experts + e];
    }
    segment_sum[seg][threadIdx.x] = sum;
    __syncthreads();
    int run = 0;
    for (int s = 0; s < seg; ++s) run += segment_sum[s][threadIdx.x];
    if (e < experts) {
        if (seg == 31) counts[e] = run + sum;
        for (int c = c0; c < c1; ++c) {
            const long long at = (long long)c * experts + e;
            const int v = table[at];
            table[at] = run;
            run += v;
        }
    }
}

__global__ void __launch_bounds__(32 * kScatterWarps)
    scatter(const int* __restrict__ ids, const int* __restrict__ bases, const int* __restrict__ counts,
            int* __restrict__ offsets_out, int* __restrict__ permutation, int tokens, int experts, int top_k,
            int chunks) {
    extern __shared__ int smem[];
    int* offsets = smem;                                     // experts
    int* partial = smem + experts;                           // 32 * kScatterWarps: scan scratch
    int* cursor = partial + 32 * kScatterWarps + (threadIdx.x / 32) * experts;  // per warp
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;

    // Exclusive scan of the counts: thread i takes a contiguous run of `per` experts.
    const int per = (experts + blockDim.x - 1) / blockDim.x;
    const int e0 = threadIdx.x * per;
    int mine = 0;
    for (int e = e0; e < min(experts, e0 + per); ++e) mine += counts[e];
    int incl = mine;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += v;
    }
    if (lane == 31) partial[warp] = incl;
    __syncthreads();
    int before = 0;
    for (int w = 0; w < warp; ++w) before += partial[w];
    int run = before + incl - mine;
    for (int e = e0; e < min(experts, e0 + per); ++e) {
        offsets[e] = run;
        if (blockIdx.x == 0) offsets_out[e] = run;
        run += counts[e];
    }
    __syncthreads();

    const int chunk = blockIdx.x * kScatterWarps + warp;
    if (chunk >= chunks) return;
    for (int e = lane; e < experts; e += 32) cursor[e] = offsets[e] + bases[(long long)chunk * experts + e];
    __syncwarp();
    const int total = tokens * top_k;
    const int begin = chunk * kChunkTokens * top_k;
    const int end = min(total, begin + kChunkTokens * top_k);
    const unsigned below_me = (1u << lane) - 1u;
    for (int i0 = begin; i0 < end; i0 += 32) {
        const int i = i0 + lane;
        const bool valid = i < end;
        const int e = valid ? ids[i] : -1 - lane;  // a key no other lane shares
        const unsigned peers = __match_any_sync(0xffffffffu, e);
        const int rank = __popc(peers & below_me);
        const int at = valid ? cursor[e] : 0;
        __syncwarp();
        if (valid) {
            permutation[at + rank] = i;
            if (rank == 0) cursor[e] = at + __popc(peers);  // the group's first lane advances it
        }
        __syncwarp();
    }
}

int* workspace(size_t ints) {
    static int* buffer = nullptr;
    static size_t capacity = 0;
    if (ints > capacity) {
        if (buffer != nullptr) cudaFree(buffer);
        buffer = nullptr;
        capacity = 0;
        if (cudaMalloc(&buffer, ints * sizeof(int)) != cudaSuccess) return nullptr;
        capacity = ints;
    }
    return buffer;
}

}  // namespace

extern "C" void solve(const float* logits, int* topk_ids, float* topk_weights, int* expert_counts,
                      int* expert_offsets, int* permutation, int tokens, int experts, int top_k) {
    const int chunks = (tokens + kChunkTokens - 1) / kChunkTokens;
    int* table = workspace((size_t)chunks * experts);
    if (table == nullptr) return;  // out of device memory: nothing sensible to do
    route_and_count<<<chunks, 32 * kRouteWarps, experts * sizeof(int)>>>(logits, topk_ids, topk_weights, table,
                                                                           tokens, experts, top_k);
    scan_chunks<<<(experts + 31) / 32, dim3(32, 32)>>>(table, expert_counts, chunks, experts);
    const size_t scatter_smem = (size_t)(experts + 32 * kScatterWarps + kScatterWarps * experts) * sizeof(int);
    scatter<<<(chunks + kScatterWarps - 1) / kScatterWarps, 32 * kScatterWarps, scatter_smem>>>(
        topk_ids, table, expert_counts, expert_offsets, permutation, tokens, experts, top_k, chunks);
}
