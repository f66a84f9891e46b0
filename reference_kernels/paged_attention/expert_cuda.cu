// Expert CUDA solution for paged decode attention with GQA (obeys the submission contract).
//
// Split-K over the context, CUDA cores only:
//   - one 128-thread block per (sequence, kv head, partition of 512 tokens, chunk of the GQA
//     group); the group's queries sit in shared memory, pre-scaled by log2(e)/sqrt(d);
//   - each warp is two half-warps, each half-warp owns kUnroll tokens per step: its 16 lanes hold
//     head_dim/16 contiguous dimensions, so a K or V row is one coalesced 16-lane load (16-byte
//     vectors for d = 128), and a dot product is a 4-step shuffle reduction; the K and V loads
//     of a step are all issued before the first is used;
//   - every half-warp runs its own online softmax (exp2 domain); the accumulator is rescaled only
//     when the running max moves, which after the first few tokens is rare;
//   - the 8 half-warp states are merged through shared memory; with one partition the block
//     writes the output, otherwise a second kernel merges the partitions of each head.
// head_dim up to 256. Slower than a tensor-core version for large groups (see the Triton expert).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

namespace {

constexpr int kThreads = 128;
constexpr int kStates = kThreads / 16;  // half-warps per block
constexpr int kPartition = 512;
constexpr int kUnroll = 2;  // tokens per half-warp per step
constexpr float kLog2e = 1.4426950408889634f;

template <int DPL>
__device__ __forceinline__ void load_dims(const __nv_bfloat16* __restrict__ row, int d0, int head_dim, bool vec,
                                          float (&out)[DPL]) {
    if (vec) {
        if constexpr (DPL % 8 == 0) {
#pragma unroll
            for (int c = 0; c < DPL / 8; ++c) {
                uint4 raw = *reinterpret_cast<const uint4*>(row + d0 + 8 * c);
                const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
                for (int p = 0; p < 4; ++p) {
                    float2 f = __bfloat1622float2(pairs[p]);
                    out[8 * c + 2 * p] = f.x;
                    out[8 * c + 2 * p + 1] = f.y;
                }
            }
        } else if constexpr (DPL == 4) {
            uint2 raw = *reinterpret_cast<const uint2*>(row + d0);
            const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
            float2 f0 = __bfloat1622float2(pairs[0]), f1 = __bfloat1622float2(pairs[1]);
            out[0] = f0.x; out[1] = f0.y; out[2] = f1.x; out[3] = f1.y;
        } else if constexpr (DPL == 2) {
            float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(row + d0));
            out[0] = f.x; out[1] = f.y;
        } else {
            out[0] = __bfloat162float(row[d0]);
        }
    } else {
#pragma unroll
        for (int e = 0; e < DPL; ++e) out[e] = d0 + e < head_dim ? __bfloat162float(row[d0 + e]) : 0.0f;
    }
}

template <int DPL, int GC>
__global__ void __launch_bounds__(kThreads) attend_partition(
    const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k_cache,
    const __nv_bfloat16* __restrict__ v_cache, const int* __restrict__ block_table, const int* __restrict__ seq_lens,
    __nv_bfloat16* __restrict__ out, float* __restrict__ part_acc, float* __restrict__ part_stats, int num_heads,
    int num_kv_heads, int head_dim, int block_size, int max_blocks, int group, int max_parts, float qk_scale,
    bool vec) {
    constexpr int D = 16 * DPL;  // dimensions covered by one half-warp
    __shared__ float s_max[kStates][GC];
    __shared__ float s_sum[kStates][GC];
    __shared__ float s_acc[kStates][GC][D];
    __shared__ float s_q[GC][D];

    const int seq = blockIdx.x / num_kv_heads;
    const int kv_head = blockIdx.x % num_kv_heads;
    const int part = blockIdx.y;
    const int length = seq_lens[seq];
    const int start = part * kPartition;
    if (start >= length) return;  // whole block leaves together
    const int end = min(start + kPartition, length);
    const int head0 = kv_head * group + blockIdx.z * GC;
    const int heads = min(GC, group - blockIdx.z * GC);

    const int half = threadIdx.x >> 4;  // 0 .. kStates-1
    const int sl = threadIdx.x & 15;
    const int d0 = sl * DPL;

    // The group's queries, pre-scaled, live in shared memory (registers go to the accumulators).
    for (int item = threadIdx.x; item < GC * D; item += kThreads) {
        int g = item / D, d = item % D;
        float value = 0.0f;
        if (g < heads && d < head_dim) value = __bfloat162float(q[((long long)seq * num_heads + head0 + g) * head_dim + d]);
        s_q[g][d] = value * qk_scale;
    }
    float run_max[GC], run_sum[GC], acc[GC][DPL];
#pragma unroll
    for (int g = 0; g < GC; ++g) {
        run_max[g] = -CUDART_INF_F;
        run_sum[g] = 0.0f;
#pragma unroll
        for (int e = 0; e < DPL; ++e) acc[g][e] = 0.0f;
    }
    __syncthreads();

    // All threads run the same number of iterations (the bound depends on `base` only), so the
    // half-warp shuffles below are always executed by full warps.
    for (int base = start; base < end; base += kStates * kUnroll) {
        float kr[kUnroll][DPL], vr[kUnroll][DPL];
        bool valid[kUnroll];
        // Issue the K and V loads of all kUnroll tokens before using any of them.
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            int t = base + u * kStates + half;
            valid[u] = t < end;
            if (valid[u]) {
                int page = block_table[(long long)seq * max_blocks + t / block_size];
                long long row = ((long long)page * block_size + t % block_size) * num_kv_heads + kv_head;
                load_dims<DPL>(k_cache + row * head_dim, d0, head_dim, vec, kr[u]);
                load_dims<DPL>(v_cache + row * head_dim, d0, head_dim, vec, vr[u]);
            } else {
#pragma unroll
                for (int e = 0; e < DPL; ++e) kr[u][e] = vr[u][e] = 0.0f;
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
            for (int g = 0; g < GC; ++g) {
                float s = 0.0f;
#pragma unroll
                for (int e = 0; e < DPL; ++e) s = fmaf(s_q[g][d0 + e], kr[u][e], s);
#pragma unroll
                for (int o = 8; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);  // within the half-warp
                if (!valid[u]) continue;  // uniform within the half-warp
                if (s > run_max[g]) {
                    float alpha = exp2f(run_max[g] - s);  // 0 for the first token
                    run_sum[g] *= alpha;
#pragma unroll
                    for (int e = 0; e < DPL; ++e) acc[g][e] *= alpha;
                    run_max[g] = s;
                }
                float p = exp2f(s - run_max[g]);
                run_sum[g] += p;
#pragma unroll
                for (int e = 0; e < DPL; ++e) acc[g][e] = fmaf(p, vr[u][e], acc[g][e]);
            }
        }
    }

    if (sl == 0) {
#pragma unroll
        for (int g = 0; g < GC; ++g) {
            s_max[half][g] = run_max[g];
            s_sum[half][g] = run_sum[g];
        }
    }
#pragma unroll
    for (int g = 0; g < GC; ++g)
#pragma unroll
        for (int e = 0; e < DPL; ++e) s_acc[half][g][d0 + e] = acc[g][e];
    __syncthreads();

    // Merge the half-warp states: thread i handles (head, dim) pairs i, i + 128, ...
    for (int item = threadIdx.x; item < GC * D; item += kThreads) {
        int g = item / D, d = item % D;
        if (g >= heads || d >= head_dim) continue;
        float top = -CUDART_INF_F;
#pragma unroll
        for (int s = 0; s < kStates; ++s) top = fmaxf(top, s_max[s][g]);
        float total = 0.0f, value = 0.0f;
#pragma unroll
        for (int s = 0; s < kStates; ++s) {
            float w = s_max[s][g] == -CUDART_INF_F ? 0.0f : exp2f(s_max[s][g] - top);
            total += w * s_sum[s][g];
            value += w * s_acc[s][g][d];
        }
        long long head_row = (long long)seq * num_heads + head0 + g;
        if (max_parts == 1) {
            out[head_row * head_dim + d] = __float2bfloat16_rn(value / total);
        } else {
            long long slot = head_row * max_parts + part;
            part_acc[slot * head_dim + d] = value;
            if (d == 0) {
                part_stats[2 * slot] = top;
                part_stats[2 * slot + 1] = total;
            }
        }
    }
}

__global__ void __launch_bounds__(kThreads) merge_partitions(const int* __restrict__ seq_lens,
                                                             __nv_bfloat16* __restrict__ out,
                                                             const float* __restrict__ part_acc,
                                                             const float* __restrict__ part_stats, int num_heads,
                                                             int head_dim, int max_parts) {
    const long long head_row = blockIdx.x;  // seq * num_heads + head
    const int parts = (seq_lens[head_row / num_heads] + kPartition - 1) / kPartition;
    const float* stats = part_stats + 2 * head_row * max_parts;
    float top = -CUDART_INF_F;
    for (int p = 0; p < parts; ++p) top = fmaxf(top, stats[2 * p]);
    float total = 0.0f;
    for (int p = 0; p < parts; ++p) total += exp2f(stats[2 * p] - top) * stats[2 * p + 1];
    const float inv = 1.0f / total;
    for (int d = threadIdx.x; d < head_dim; d += kThreads) {
        float value = 0.0f;
        for (int p = 0; p < parts; ++p)
            value += exp2f(stats[2 * p] - top) * part_acc[(head_row * max_parts + p) * head_dim + d];
        out[head_row * head_dim + d] = __float2bfloat16_rn(value * inv);
    }
}

template <int DPL, int GC>
void launch(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
            const int* block_table, const int* seq_lens, __nv_bfloat16* out, float* part_acc, float* part_stats,
            int num_seqs, int num_heads, int num_kv_heads, int head_dim, int block_size, int max_blocks, int max_parts,
            float qk_scale, bool vec) {
    int group = num_heads / num_kv_heads;
    dim3 grid(num_seqs * num_kv_heads, max_parts, (group + GC - 1) / GC);
    attend_partition<DPL, GC><<<grid, kThreads>>>(q, k_cache, v_cache, block_table, seq_lens, out, part_acc,
                                                 part_stats, num_heads, num_kv_heads, head_dim, block_size,
                                                 max_blocks, group, max_parts, qk_scale, vec);
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                      const int* block_table, const int* seq_lens, __nv_bfloat16* out, int num_seqs, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    if (num_seqs <= 0 || head_dim > 256) return;
    const int max_len = max_blocks_per_seq * block_size;
    const int max_parts = (max_len + kPartition - 1) / kPartition;
    const float qk_scale = kLog2e / sqrtf((float)head_dim);

    // Partition scratch: grown on demand, kept for later calls (allocation is not free).
    static float* scratch = nullptr;
    static size_t scratch_floats = 0;
    float* part_acc = nullptr;
    float* part_stats = nullptr;
    if (max_parts > 1) {
        size_t rows = (size_t)num_seqs * num_heads * max_parts;
        size_t need = rows * head_dim + 2 * rows;
        if (need > scratch_floats) {
            if (scratch) cudaFree(scratch);
            if (cudaMalloc(&scratch, need * sizeof(float)) != cudaSuccess) {
                scratch = nullptr;
                scratch_floats = 0;
                return;
            }
            scratch_floats = need;
        }
        part_acc = scratch;
        part_stats = scratch + rows * head_dim;
    }

    int dpl = head_dim <= 16 ? 1 : head_dim <= 32 ? 2 : head_dim <= 64 ? 4 : head_dim <= 128 ? 8 : 16;
    bool aligned = ((reinterpret_cast<uintptr_t>(q) | reinterpret_cast<uintptr_t>(k_cache) |
                     reinterpret_cast<uintptr_t>(v_cache)) & 15) == 0;
    bool vec = aligned && head_dim == 16 * dpl;
#define GS_LAUNCH(DPL, GC)                                                                                        \
    launch<DPL, GC>(q, k_cache, v_cache, block_table, seq_lens, out, part_acc, part_stats, num_seqs, num_heads,  \
                    num_kv_heads, head_dim, block_size, max_blocks_per_seq, max_parts, qk_scale, vec)
    switch (dpl) {
        case 1: GS_LAUNCH(1, 8); break;
        case 2: GS_LAUNCH(2, 8); break;
        case 4: GS_LAUNCH(4, 8); break;
        case 8: GS_LAUNCH(8, 8); break;
        default: GS_LAUNCH(16, 4); break;
    }
#undef GS_LAUNCH
    if (max_parts > 1) {
        merge_partitions<<<num_seqs * num_heads, kThreads>>>(seq_lens, out, part_acc, part_stats, num_heads, head_dim,
                                                             max_parts);
    }
}
