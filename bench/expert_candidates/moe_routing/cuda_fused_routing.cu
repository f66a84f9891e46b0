// Candidate CUDA expert for MoE routing: softmax top-k gating and the stable grouping by expert in
// two launches. Not yet run or measured on a GPU: it is only known to compile for sm_90.
//
// Layout of the work. A chunk is 8 * per_warp consecutive tokens (per_warp is chosen so that there
// are at most 512 chunks); a group is 16 consecutive chunks (so at most 32 groups).
//
// Launch 1, route_chunks (a block of 8 warps per chunk): each warp routes its own per_warp
// consecutive tokens, R rows at a time with the rows in registers (lane l holds experts l, l + 32,
// ...; R * ceil(experts / 32) <= 16 values per lane) and the rest of its rows prefetched into L2 when
// it starts. Each selection round takes the lane's maximum, the warp maximum with one
// __reduce_max_sync on an order-preserving integer image of the float, then the lowest expert id
// holding that value with one __reduce_min_sync: the order is (logit descending, id ascending),
// exactly the stable sort of the statement. The first round's value is the row maximum; the sum of
// exponentials follows it, before the winner is removed. The picks of a batch sit one per lane
// (lane r * top_k + j), in flat order, so ids and weights are stored contiguously, and
// __match_any_sync plus a population count ranks equal experts among them on top of the warp's
// running per-expert count in shared memory. After the block's warps finish, a column pass over the
// 8 warp histograms turns them into per-warp bases and the chunk's histogram, which goes to a
// [chunks, experts] table; each assignment's key (expert << 17 | rank inside the chunk) goes to a
// workspace array. The last block of each group to finish (a counter per group and a fence, the
// classic threadfence-reduction handshake) sums the group's table rows into a [groups, experts]
// array.
// Launch 2, place (a block of 512 threads per group): thread e sums column e of the group sums
// (the expert's total and the part before this group), walks the group's 16 table rows for each
// chunk's base inside the expert's group, and the block scans the totals into the offsets (block 0
// writes expert_counts and expert_offsets, each block resets its group's counter to zero for the
// next call). Then every assignment of the group is written to
// permutation[offset[e] + chunk base[e] + rank]. Stable by construction: groups, chunks, warps,
// batches and lanes are all taken in flat-index order, and a token picks an expert at most once.
//
// Passes over global memory: the logits are read once (16-32 MiB on the benchmark shapes); ids,
// weights and keys written once (12 bytes per assignment); keys read once and the permutation
// written once (8 bytes per assignment); the table and group sums (at most 512 * experts and
// 32 * experts ints) stay in L2. The current expert makes three launches and a third kernel over
// the table; this one makes two and no serial walk over the chunks (the longest dependent chain is
// the 16 + 32 independent loads of one column in launch 2).
//
// Exactness: selection compares logits only (never probabilities); -0.0 is folded into +0.0 before
// the integer image so that equal floats are equal keys. The weights are expf(v - max) / sum in fp32,
// the sum taken with __expf over the row (the statement's tolerance, 1e-5 relative, allows any fp32
// softmax). Workspace (kept between calls, zeroed when it is first allocated): 32 group counters,
// which launch 2 returns to zero on every call, then the group sums, the table and the keys.
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

namespace {

constexpr int kWarps = 8;  // warps per routing block
constexpr int kRouteThreads = 32 * kWarps;
constexpr int kMaxChunks = 512;
constexpr int kGroup = 16;                       // chunks per group
constexpr int kMaxGroups = kMaxChunks / kGroup;  // 32
constexpr int kPlaceThreads = 512;               // >= experts: one thread per expert in launch 2
constexpr int kMaxExperts = 512;
constexpr int kRankBits = 17;  // rank inside a chunk (< 2^17); the expert id above it
constexpr unsigned kFull = 0xffffffffu;

// An int whose signed order is the float's order (for non-NaN values); its own inverse.
__device__ __forceinline__ int order_key(float f) {
    const int b = __float_as_int(f);
    return b ^ ((b >> 31) & 0x7fffffff);
}
__device__ __forceinline__ float key_value(int k) { return __int_as_float(k ^ ((k >> 31) & 0x7fffffff)); }

// PL: values per lane per row (experts <= 32 * PL); R: rows per batch, R * PL <= 16 and R * 8 <= 32
// so that a batch's picks fit one per lane.
template <int PL, int R>
__global__ void __launch_bounds__(kRouteThreads, 4)
    route_chunks(const float* __restrict__ logits, int* __restrict__ ids, float* __restrict__ weights,
                 int* __restrict__ keys, int* __restrict__ table, int* __restrict__ group_sums,
                 int* __restrict__ group_done, int tokens, int experts, int top_k, int per_warp) {
    extern __shared__ int smem[];
    const int chunk_tokens = kWarps * per_warp;
    int* hist = smem;                                       // [kWarps][experts]
    int* pick_id = hist + kWarps * experts;                 // [chunk_tokens * top_k]
    int* pick_rank = pick_id + chunk_tokens * top_k;        // rank inside the warp's tokens
    __shared__ int last_of_group;

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int chunk = blockIdx.x;
    const int cbegin = chunk * chunk_tokens;
    const int cend = min(tokens, cbegin + chunk_tokens);
    for (int i = tid; i < kWarps * experts; i += kRouteThreads) hist[i] = 0;
    __syncthreads();

    int* my_hist = hist + warp * experts;
    const int wbegin = cbegin + warp * per_warp;
    const int wend = min(cend, wbegin + per_warp);
    if (wbegin + R < wend) {  // the warp's later rows into L2 now, while the first batch is routed
        const uintptr_t a0 =
            reinterpret_cast<uintptr_t>(logits + (size_t)(wbegin + R) * experts) & ~(uintptr_t)127;
        const uintptr_t a1 = reinterpret_cast<uintptr_t>(logits + (size_t)wend * experts);
        for (uintptr_t a = a0 + (uintptr_t)lane * 128; a < a1; a += 32 * 128)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
    }
    const int pick_row = lane / top_k;  // the batch row whose pick this lane keeps (if lane < R * top_k)
    const unsigned below = (1u << lane) - 1u;

    for (int t0 = wbegin; t0 < wend; t0 += R) {  // warp-uniform
        float x[R][PL];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const bool row_ok = t0 + r < wend;
            const float* row = logits + (size_t)(t0 + r) * experts;
#pragma unroll
            for (int i = 0; i < PL; ++i) {
                const int e = lane + 32 * i;
                x[r][i] = (row_ok && e < experts) ? __ldcs(row + e) : -INFINITY;
            }
        }
        float row_max[R];
        float row_sum[R];
        int my_id = 0;
        float my_val = 0.0f;
        for (int j = 0; j < top_k; ++j) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                float lm = x[r][0];
#pragma unroll
                for (int i = 1; i < PL; ++i) lm = fmaxf(lm, x[r][i]);
                lm += 0.0f;  // -0.0 -> +0.0: floats that compare equal get the same key
                const float v = key_value(__reduce_max_sync(kFull, order_key(lm)));
                int cand = INT_MAX;  // the lane's lowest expert id holding v
#pragma unroll
                for (int i = PL - 1; i >= 0; --i) {
                    if (x[r][i] == v) cand = lane + 32 * i;
                }
                const int id = __reduce_min_sync(kFull, cand);
                if (j == 0) {  // v is the row's maximum: the sum of exponentials, before any removal
                    row_max[r] = v;
                    float s = 0.0f;
#pragma unroll
                    for (int i = 0; i < PL; ++i) s += __expf(x[r][i] - v);  // padding: exp(-inf) = 0
#pragma unroll
                    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(kFull, s, o);
                    row_sum[r] = s;
                }
                if (lane == r * top_k + j) {
                    my_id = id;
                    my_val = v;
                }
                // Remove the winner (a select per value, so that x stays in registers).
                const bool owner = j + 1 < top_k && lane == (id & 31);
                const int slot = id >> 5;
#pragma unroll
                for (int i = 0; i < PL; ++i) x[r][i] = (owner && i == slot) ? -INFINITY : x[r][i];
            }
        }
        float my_max = 0.0f;
        float my_sum = 1.0f;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (pick_row == r) {
                my_max = row_max[r];
                my_sum = row_sum[r];
            }
        }
        // Lane r * top_k + j holds pick j of row r: lanes in flat-index order.
        const bool valid = lane < R * top_k && t0 + pick_row < wend;
        const unsigned peers = __match_any_sync(kFull, valid ? my_id : -1 - lane);
        const int ahead = __popc(peers & below);  // earlier picks of the same expert in this batch
        const int base = valid ? my_hist[my_id] : 0;
        __syncwarp();
        if (valid && ahead == 0) my_hist[my_id] = base + __popc(peers);
        __syncwarp();
        if (valid) {
            const int flat = t0 * top_k + lane;
            ids[flat] = my_id;
            weights[flat] = expf(my_val - my_max) / my_sum;
            const int local = flat - cbegin * top_k;
            pick_id[local] = my_id;
            pick_rank[local] = base + ahead;
        }
    }
    __syncthreads();

    // Per expert: the warps' counts become their bases inside the chunk; the total is the chunk's.
    for (int e = tid; e < experts; e += kRouteThreads) {
        int run = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            const int h = hist[w * experts + e];
            hist[w * experts + e] = run;
            run += h;
        }
        table[(size_t)chunk * experts + e] = run;
    }
    __syncthreads();
    const int picks = (cend - cbegin) * top_k;
    const int warp_picks = per_warp * top_k;
    for (int a = tid; a < picks; a += kRouteThreads) {
        const int e = pick_id[a];
        keys[(size_t)cbegin * top_k + a] = (e << kRankBits) | (hist[(a / warp_picks) * experts + e] + pick_rank[a]);
    }

    // The last block of the group to get here sums the group's table rows.
    __threadfence();
    __syncthreads();
    const int group = chunk / kGroup;
    const int in_group = min(kGroup, (int)gridDim.x - group * kGroup);
    if (tid == 0) last_of_group = atomicAdd(&group_done[group], 1) == in_group - 1;
    __syncthreads();
    if (last_of_group) {
        __threadfence();
        const int* rows = table + (size_t)group * kGroup * experts;
        for (int e = tid; e < experts; e += kRouteThreads) {
            int s = 0;  // unrolled: the 16 loads are independent and issue together
#pragma unroll
            for (int g = 0; g < kGroup; ++g) s += g < in_group ? __ldcg(rows + (size_t)g * experts + e) : 0;
            group_sums[(size_t)group * experts + e] = s;
        }
    }
}

__global__ void __launch_bounds__(kPlaceThreads)
    place(const int* __restrict__ keys, const int* __restrict__ table, const int* __restrict__ group_sums,
          int* __restrict__ group_done, int* __restrict__ counts, int* __restrict__ offsets,
          int* __restrict__ permutation, int assignments, int experts, int chunks, int groups, int chunk_picks) {
    extern __shared__ int smem[];
    int* base = smem;                          // [kGroup][experts]: offset[e] + chunk base inside e's group
    __shared__ int warp_total[kPlaceThreads / 32];
    constexpr int kEarly = 4;  // keys loaded before the prologue, per thread

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int group = blockIdx.x;
    const int c0 = group * kGroup;
    const int in_group = min(kGroup, chunks - c0);
    const int a0 = c0 * chunk_picks;
    const int a1 = min(assignments, (c0 + in_group) * chunk_picks);

    int early[kEarly];
#pragma unroll
    for (int u = 0; u < kEarly; ++u) {
        const int a = a0 + tid + u * kPlaceThreads;
        early[u] = a < a1 ? keys[a] : 0;
    }

    const int e = tid;
    int total = 0;   // the expert's assignments
    int before = 0;  // those in earlier groups
    int t[kGroup] = {};
    if (e < experts) {
        int v[kMaxGroups];
#pragma unroll
        for (int q = 0; q < kMaxGroups; ++q) v[q] = q < groups ? __ldcg(group_sums + (size_t)q * experts + e) : 0;
#pragma unroll
        for (int g = 0; g < kGroup; ++g) t[g] = g < in_group ? __ldcg(table + (size_t)(c0 + g) * experts + e) : 0;
#pragma unroll
        for (int q = 0; q < kMaxGroups; ++q) {
            if (q == group) before = total;
            total += v[q];
        }
    }
    // Exclusive scan of the totals over the experts (thread e holds expert e).
    int incl = total;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int n = __shfl_up_sync(kFull, incl, o);
        if (lane >= o) incl += n;
    }
    if (lane == 31) warp_total[warp] = incl;
    __syncthreads();
    int lower = 0;
    for (int w = 0; w < warp; ++w) lower += warp_total[w];
    const int first = lower + incl - total;  // expert_offsets[e]
    if (e < experts) {
        if (group == 0) {
            counts[e] = total;
            offsets[e] = first;
        }
        int run = first + before;
#pragma unroll
        for (int g = 0; g < kGroup; ++g) {
            base[g * experts + e] = run;
            run += t[g];
        }
    }
    if (tid == 0) group_done[group] = 0;  // ready for the next call
    __syncthreads();

    constexpr int kRankMask = (1 << kRankBits) - 1;
#pragma unroll
    for (int u = 0; u < kEarly; ++u) {
        const int a = a0 + tid + u * kPlaceThreads;
        if (a < a1) {
            const int key = early[u];
            permutation[base[((a - a0) / chunk_picks) * experts + (key >> kRankBits)] + (key & kRankMask)] = a;
        }
    }
    for (int a = a0 + tid + kEarly * kPlaceThreads; a < a1; a += kPlaceThreads) {
        const int key = keys[a];
        permutation[base[((a - a0) / chunk_picks) * experts + (key >> kRankBits)] + (key & kRankMask)] = a;
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
        if (cudaMemset(buffer, 0, ints * sizeof(int)) != cudaSuccess) return nullptr;  // the group counters
        capacity = ints;
    }
    return buffer;
}

template <int PL, int R>
void launch_route(int chunks, size_t smem, const float* logits, int* ids, float* weights, int* keys, int* table,
                  int* group_sums, int* group_done, int tokens, int experts, int top_k, int per_warp) {
    route_chunks<PL, R><<<chunks, kRouteThreads, smem>>>(logits, ids, weights, keys, table, group_sums, group_done,
                                                         tokens, experts, top_k, per_warp);
}

}  // namespace

extern "C" void solve(const float* logits, int* topk_ids, float* topk_weights, int* expert_counts,
                      int* expert_offsets, int* permutation, int tokens, int experts, int top_k) {
    if (tokens <= 0 || experts <= 0 || experts > kMaxExperts || top_k <= 0 || top_k > 8 || top_k > experts) return;
    const int pl = experts <= 32 ? 1 : experts <= 64 ? 2 : experts <= 128 ? 4 : experts <= 256 ? 8 : 16;
    const int rows = pl <= 4 ? 4 : 16 / pl;  // rows per batch
    // per_warp >= tokens / 4096 keeps chunks <= 512 (so groups <= 32); a multiple of the batch.
    int per_warp = (tokens + kMaxChunks * kWarps - 1) / (kMaxChunks * kWarps);
    per_warp = (per_warp + rows - 1) / rows * rows;
    const int chunk_tokens = kWarps * per_warp;
    const int chunks = (tokens + chunk_tokens - 1) / chunk_tokens;
    const int groups = (chunks + kGroup - 1) / kGroup;
    const int assignments = tokens * top_k;

    const size_t table_ints = (size_t)chunks * experts;
    const size_t sums_ints = (size_t)groups * experts;
    int* ws = workspace(kMaxGroups + sums_ints + table_ints + (size_t)assignments);
    if (ws == nullptr) return;  // out of device memory: nothing sensible to do
    int* group_done = ws;  // always the first kMaxGroups ints, always zero between calls
    int* group_sums = group_done + kMaxGroups;
    int* table = group_sums + sums_ints;
    int* keys = table + table_ints;

    const size_t route_smem = (size_t)(kWarps * experts + 2 * chunk_tokens * top_k) * sizeof(int);
    switch (pl) {
        case 1:
            launch_route<1, 4>(chunks, route_smem, logits, topk_ids, topk_weights, keys, table, group_sums,
                               group_done, tokens, experts, top_k, per_warp);
            break;
        case 2:
            launch_route<2, 4>(chunks, route_smem, logits, topk_ids, topk_weights, keys, table, group_sums,
                               group_done, tokens, experts, top_k, per_warp);
            break;
        case 4:
            launch_route<4, 4>(chunks, route_smem, logits, topk_ids, topk_weights, keys, table, group_sums,
                               group_done, tokens, experts, top_k, per_warp);
            break;
        case 8:
            launch_route<8, 2>(chunks, route_smem, logits, topk_ids, topk_weights, keys, table, group_sums,
                               group_done, tokens, experts, top_k, per_warp);
            break;
        default:
            launch_route<16, 1>(chunks, route_smem, logits, topk_ids, topk_weights, keys, table, group_sums,
                                group_done, tokens, experts, top_k, per_warp);
            break;
    }
    const size_t place_smem = (size_t)kGroup * experts * sizeof(int);
    place<<<groups, kPlaceThreads, place_smem>>>(keys, table, group_sums, group_done, expert_counts, expert_offsets,
                                                 permutation, assignments, experts, chunks, groups,
                                                 chunk_tokens * top_k);
}
