// Expert CUDA kernel for chunked-prefill attention over a paged KV cache (bf16, GQA).
//
// For head_dim 64 and 128 (the tensor-core path): a block of four warps takes 64 rows of the
// flattened (query, head of the group) list of one kv head and one sequence, so each K and V tile
// is loaded once for all the query heads that share it. The positions the block's last query
// sees, 0 .. prefix + last query, are walked in tiles of 64: each tile's K and V rows are copied
// to shared memory in 16-byte pieces, from the cache through the block table or from the chunk.
// Per tile and warp (16 rows): S = Q K^T with bf16 WMMA fragments and fp32 accumulators, the
// online softmax in fp32 on S in shared memory (exp2, the scale folded in; a pair of lanes per
// row; the causal mask at the prefix's offset), P rounded to bf16, the output rows rescaled, and
// O += P V with WMMA. The output accumulates in shared memory in fp32 and is divided by the row
// sums once at the end. Blocks are launched longest first (late query tiles see the most keys).
// Other head sizes take a plain kernel: 32 queries of one head a block, four threads per query,
// K and V tiles of 32 positions in shared memory.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BR 64   // rows (query, head of the group) per block
#define BKV 64  // positions per K/V tile
#define LOG2E 1.4426950408889634f

template <int D>
struct Layout {
    static constexpr int LDK = D + 8;    // bf16 Q, K, V rows: 16-byte aligned, fragment-aligned
    static constexpr int LDS = BKV + 4;  // fp32 scores
    static constexpr int LDP = BKV + 8;  // bf16 probabilities
    static constexpr int LDO = D + 4;    // fp32 output
    static constexpr int Q = 0;
    static constexpr int K = Q + BR * LDK * 2;
    static constexpr int V = K + BKV * LDK * 2;
    static constexpr int S = V + BKV * LDK * 2;
    static constexpr int P = S + BR * LDS * 4;
    static constexpr int O = P + BR * LDP * 2;
    static constexpr int ALPHA = O + BR * LDO * 4;
    static constexpr int SUM = ALPHA + BR * 4;
    static constexpr int BYTES = SUM + BR * 4;
};

template <int D>
__global__ void __launch_bounds__(128) prefill_wmma(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                    const __nv_bfloat16* v, const __nv_bfloat16* k_cache,
                                                    const __nv_bfloat16* v_cache, const int* block_table,
                                                    const int* prefix_lens, __nv_bfloat16* out, int chunk_len,
                                                    int num_heads, int num_kv_heads, int block_size,
                                                    int max_blocks_per_seq, int group, float scores_mult) {
    using L = Layout<D>;
    constexpr int CH = D / 8;  // 16-byte pieces per row
    extern __shared__ __align__(128) unsigned char smem[];
    __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(smem + L::Q);
    __nv_bfloat16* Ks = reinterpret_cast<__nv_bfloat16*>(smem + L::K);
    __nv_bfloat16* Vs = reinterpret_cast<__nv_bfloat16*>(smem + L::V);
    float* Ss = reinterpret_cast<float*>(smem + L::S);
    __nv_bfloat16* Ps = reinterpret_cast<__nv_bfloat16*>(smem + L::P);
    float* Os = reinterpret_cast<float*>(smem + L::O);
    float* alpha_s = reinterpret_cast<float*>(smem + L::ALPHA);
    float* sum_s = reinterpret_cast<float*>(smem + L::SUM);

    int tile = gridDim.x - 1 - blockIdx.x;  // longest first
    int kv_head = blockIdx.y, seq = blockIdx.z;
    int prefix = prefix_lens[seq];
    int r0 = tile * BR;
    int last_query = min(chunk_len - 1, (r0 + BR - 1) / group);
    int length = prefix + last_query + 1;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float neg_inf = __int_as_float(0xff800000);

    for (int e = threadIdx.x; e < BR * CH; e += blockDim.x) {
        int r = e / CH, c = (e % CH) * 8;
        int query = (r0 + r) / group, head = kv_head * group + (r0 + r) % group;
        uint4 piece = make_uint4(0, 0, 0, 0);
        if (query < chunk_len)
            piece = *reinterpret_cast<const uint4*>(q + (((long long)seq * chunk_len + query) * num_heads + head) * D + c);
        *reinterpret_cast<uint4*>(Qs + r * L::LDK + c) = piece;
    }
    for (int e = threadIdx.x; e < BR * L::LDO; e += blockDim.x) Os[e] = 0.0f;

    // The softmax statistics of row rl live in the lane pair (2 rl % 32, + 1) of warp rl / 16.
    int rl = warp * 16 + lane / 2, half = lane % 2;
    int my_query = min((r0 + rl) / group, chunk_len - 1);  // rows past the chunk copy the last query; never written
    int visible_end = prefix + my_query;
    float run_max = neg_inf, run_sum = 0.0f;

    for (int k0 = 0; k0 < length; k0 += BKV) {
        __syncthreads();  // the previous tile's K and V are consumed (and Q, O are initialized)
        for (int e = threadIdx.x; e < BKV * CH; e += blockDim.x) {
            int kk = e / CH, c = (e % CH) * 8, p = k0 + kk;
            uint4 kp = make_uint4(0, 0, 0, 0), vp = kp;
            if (p < length) {
                long long base;
                if (p < prefix) {
                    long long page = block_table[(long long)seq * max_blocks_per_seq + p / block_size];
                    base = ((page * block_size + p % block_size) * num_kv_heads + kv_head) * D + c;
                    kp = *reinterpret_cast<const uint4*>(k_cache + base);
                    vp = *reinterpret_cast<const uint4*>(v_cache + base);
                } else {
                    base = (((long long)seq * chunk_len + (p - prefix)) * num_kv_heads + kv_head) * D + c;
                    kp = *reinterpret_cast<const uint4*>(k + base);
                    vp = *reinterpret_cast<const uint4*>(v + base);
                }
            }
            *reinterpret_cast<uint4*>(Ks + kk * L::LDK + c) = kp;
            *reinterpret_cast<uint4*>(Vs + kk * L::LDK + c) = vp;
        }
        __syncthreads();

        // S = Q K^T for the warp's 16 rows (K stored [position][d] is K^T in column-major order).
#pragma unroll
        for (int j = 0; j < BKV / 16; ++j) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
            wmma::fill_fragment(s, 0.0f);
#pragma unroll
            for (int kd = 0; kd < D / 16; ++kd) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
                wmma::load_matrix_sync(a, Qs + warp * 16 * L::LDK + kd * 16, L::LDK);
                wmma::load_matrix_sync(b, Ks + j * 16 * L::LDK + kd * 16, L::LDK);
                wmma::mma_sync(s, a, b, s);
            }
            wmma::store_matrix_sync(Ss + warp * 16 * L::LDS + j * 16, s, L::LDS, wmma::mem_row_major);
        }
        __syncwarp();

        // Online softmax: each lane of the pair takes 32 of the tile's 64 positions.
        float x[32];
        float tile_max = neg_inf;
#pragma unroll
        for (int t = 0; t < 32; ++t) {
            int key = half * 32 + t, p = k0 + key;
            bool seen = p < length && p <= visible_end;
            x[t] = seen ? Ss[rl * L::LDS + key] * scores_mult : neg_inf;
            tile_max = fmaxf(tile_max, x[t]);
        }
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
        float new_max = fmaxf(run_max, tile_max);
        float alpha = new_max == neg_inf ? 1.0f : exp2f(run_max - new_max);
        float part = 0.0f;
#pragma unroll
        for (int t = 0; t < 32; ++t) {
            float w = x[t] == neg_inf ? 0.0f : exp2f(x[t] - new_max);
            part += w;
            Ps[rl * L::LDP + half * 32 + t] = __float2bfloat16(w);
        }
        part += __shfl_xor_sync(0xffffffffu, part, 1);
        run_sum = run_sum * alpha + part;
        run_max = new_max;
        if (half == 0) alpha_s[rl] = alpha;
        __syncwarp();
        for (int e = lane; e < 16 * D; e += 32) {
            int rr = warp * 16 + e / D;
            Os[rr * L::LDO + e % D] *= alpha_s[rr];
        }
        __syncwarp();

        // O += P V for the warp's 16 rows.
#pragma unroll
        for (int j = 0; j < D / 16; ++j) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> o;
            wmma::load_matrix_sync(o, Os + warp * 16 * L::LDO + j * 16, L::LDO, wmma::mem_row_major);
#pragma unroll
            for (int kk = 0; kk < BKV / 16; ++kk) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
                wmma::load_matrix_sync(a, Ps + warp * 16 * L::LDP + kk * 16, L::LDP);
                wmma::load_matrix_sync(b, Vs + kk * 16 * L::LDK + j * 16, L::LDK);
                wmma::mma_sync(o, a, b, o);
            }
            wmma::store_matrix_sync(Os + warp * 16 * L::LDO + j * 16, o, L::LDO, wmma::mem_row_major);
        }
        __syncwarp();
    }

    if (half == 0) sum_s[rl] = run_sum;
    __syncwarp();
    for (int e = lane; e < 16 * D; e += 32) {
        int rr = warp * 16 + e / D, d = e % D;
        int row = r0 + rr, query = row / group;
        if (query < chunk_len) {
            int head = kv_head * group + row % group;
            long long at = (((long long)seq * chunk_len + query) * num_heads + head) * D + d;
            out[at] = __float2bfloat16(Os[rr * L::LDO + d] / sum_s[rr]);
        }
    }
}

// Any head_dim up to 256: a block per (32 queries, head), four threads per query holding a
// quarter of the dimensions, K and V tiles of 32 positions in shared memory.
template <int MAX_D>
__global__ void __launch_bounds__(128) prefill_plain(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                     const __nv_bfloat16* v, const __nv_bfloat16* k_cache,
                                                     const __nv_bfloat16* v_cache, const int* block_table,
                                                     const int* prefix_lens, __nv_bfloat16* out, int chunk_len,
                                                     int num_heads, int num_kv_heads, int head_dim, int block_size,
                                                     int max_blocks_per_seq, float scores_mult) {
    constexpr int PER = MAX_D / 4;
    __shared__ __nv_bfloat16 Ks[32][MAX_D];
    __shared__ __nv_bfloat16 Vs[32][MAX_D];
    int q0 = blockIdx.x * 32, head = blockIdx.y, seq = blockIdx.z;
    int r = threadIdx.x / 4, part = threadIdx.x % 4;
    int i = q0 + r;
    bool row_ok = i < chunk_len;
    int kv_head = head / (num_heads / num_kv_heads);
    int prefix = prefix_lens[seq];
    long long q_row = (((long long)seq * chunk_len + i) * num_heads + head) * head_dim;
    float qv[PER], acc[PER];
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        int d = part + 4 * j;
        qv[j] = row_ok && d < head_dim ? __bfloat162float(q[q_row + d]) : 0.0f;
        acc[j] = 0.0f;
    }
    float run_max = __int_as_float(0xff800000), run_sum = 0.0f;
    int length = prefix + min(chunk_len, q0 + 32);
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    for (int k0 = 0; k0 < length; k0 += 32) {
        __syncthreads();
        for (int e = threadIdx.x; e < 32 * head_dim; e += blockDim.x) {
            int kk = e / head_dim, d = e % head_dim, p = k0 + kk;
            __nv_bfloat16 kval = zero, vval = zero;
            if (p < length) {
                long long base;
                if (p < prefix) {
                    long long page = block_table[(long long)seq * max_blocks_per_seq + p / block_size];
                    base = ((page * block_size + p % block_size) * num_kv_heads + kv_head) * head_dim;
                    kval = k_cache[base + d];
                    vval = v_cache[base + d];
                } else {
                    base = (((long long)seq * chunk_len + (p - prefix)) * num_kv_heads + kv_head) * head_dim;
                    kval = k[base + d];
                    vval = v[base + d];
                }
            }
            Ks[kk][d] = kval;
            Vs[kk][d] = vval;
        }
        __syncthreads();
        int n = min(32, length - k0);
        for (int kk = 0; kk < n; ++kk) {
            float dot = 0.0f;
#pragma unroll
            for (int j = 0; j < PER; ++j) {
                int d = part + 4 * j;
                if (d < head_dim) dot += qv[j] * __bfloat162float(Ks[kk][d]);
            }
            dot += __shfl_xor_sync(0xffffffffu, dot, 1);
            dot += __shfl_xor_sync(0xffffffffu, dot, 2);
            if (row_ok && k0 + kk <= prefix + i) {
                float s = dot * scores_mult;
                float new_max = fmaxf(run_max, s);
                float alpha = exp2f(run_max - new_max);
                float w = exp2f(s - new_max);
                run_sum = run_sum * alpha + w;
#pragma unroll
                for (int j = 0; j < PER; ++j) {
                    int d = part + 4 * j;
                    if (d < head_dim) acc[j] = acc[j] * alpha + w * __bfloat162float(Vs[kk][d]);
                }
                run_max = new_max;
            }
        }
    }
    if (!row_ok) return;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        int d = part + 4 * j;
        if (d < head_dim) out[q_row + d] = __float2bfloat16(acc[j] / run_sum);
    }
}

template <int D>
static void launch_wmma(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                        const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const int* block_table,
                        const int* prefix_lens, __nv_bfloat16* out, int num_seqs, int chunk_len, int num_heads,
                        int num_kv_heads, int block_size, int max_blocks_per_seq) {
    int group = num_heads / num_kv_heads;
    int bytes = Layout<D>::BYTES;
    // Over the 48 KiB default: the opt-in costs nothing at launch once set.
    cudaFuncSetAttribute(prefill_wmma<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    long long rows = (long long)chunk_len * group;
    dim3 grid((unsigned)((rows + BR - 1) / BR), num_kv_heads, num_seqs);
    prefill_wmma<D><<<grid, 128, bytes>>>(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, chunk_len,
                                          num_heads, num_kv_heads, block_size, max_blocks_per_seq, group,
                                          LOG2E / sqrtf((float)D));
}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                      const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache, const int* block_table,
                      const int* prefix_lens, __nv_bfloat16* out, int num_seqs, int chunk_len, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    if (head_dim == 64) {
        launch_wmma<64>(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, num_seqs, chunk_len, num_heads,
                        num_kv_heads, block_size, max_blocks_per_seq);
        return;
    }
    if (head_dim == 128) {
        launch_wmma<128>(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, num_seqs, chunk_len, num_heads,
                         num_kv_heads, block_size, max_blocks_per_seq);
        return;
    }
    dim3 grid((chunk_len + 31) / 32, num_heads, num_seqs);
    float mult = LOG2E / sqrtf((float)head_dim);
    if (head_dim <= 128)
        prefill_plain<128><<<grid, 128>>>(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, chunk_len,
                                          num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, mult);
    else
        prefill_plain<256><<<grid, 128>>>(q, k, v, k_cache, v_cache, block_table, prefix_lens, out, chunk_len,
                                          num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq, mult);
}
