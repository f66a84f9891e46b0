// Expert CUDA solution (v2) for paged decode attention with GQA (obeys the submission contract:
// same solve() signature, argument order, dtypes and layouts as expert_cuda.cu).
//
// ---------------------------------------------------------------------------------------------
// Why expert_cuda.cu (v1) reaches only 12-13% of DRAM bandwidth
// ---------------------------------------------------------------------------------------------
// ptxas (sm_90a): the head_dim-128 instance attend_partition<8, 8> uses 188 registers and 37 KB
// of shared memory, so an SM holds 2 blocks = 8 warps. Both the memory side and the compute side
// are latency bound at that occupancy:
//  * Few bytes in flight, never overlapped with compute. A half-warp issues the K and V rows of
//    kUnroll = 2 tokens (1 KB per half-warp, 2 KB per warp) and then waits for them before it
//    computes; nothing is prefetched for the next step. 8 warps x 2 KB = 16 KB per SM, 2.1 MB on
//    the chip, while Little's law at ~4.8 TB/s x ~1 us loaded latency wants ~5 MB outstanding
//    all the time. That alone caps the kernel near 40%, and only if compute were free.
//  * Compute is a long serial chain per (token, head): 8 FMAs on 16 lanes, then 4 dependent
//    shuffle+add steps (~25-30 cycles each), then a data-dependent branch (the running-max
//    test), exp2 and 8 more FMAs. The branch splits every (token, head) into its own basic
//    block, so the compiler cannot interleave the chains of different heads or tokens: a step
//    (4 tokens per warp) costs ~16 chains x ~150-200 cycles = ~3000 cycles of latency, on top of
//    the memory latency, and two warps per scheduler cannot hide it. 2 KB per warp per
//    ~4000 cycles x 8 warps x 132 SMs x 1.9 GHz is ~1 TB/s: the order of the 12-13% measured.
//  * Wasted work: the head_dim-128 instance is compiled for a group chunk GC = 8, and its loops
//    run over all 8 heads whatever the group is: the gqa 32/8 benchmarks (group 4) do twice the
//    FMAs, shuffles and exps needed, the MHA benchmark (group 1) eight times.
//  * Each warp instruction processes 2 tokens x 16 lanes; ~30 instructions per (token, head)
//    half-warp means ~128 issue slots per token and KV head, close to the ~110 slots an SM has
//    per 512-byte K+V row at full bandwidth: even perfectly overlapped it would be issue bound.
// (K/V are read once per (sequence, kv head) there; the block-table lookups go through L1 and are
// a minor cost. The partitioning, 512 tokens per block, gives enough blocks.)
//
// ---------------------------------------------------------------------------------------------
// Design of v2
// ---------------------------------------------------------------------------------------------
// Split-K ("flash decoding"), two kernels:
//   attend: one 128-thread block per (sequence, kv head, partition of kPartition = 512 tokens,
//           chunk of up to 8 query heads of the group). The 4 warps take interleaved 16-token
//           chunks of the partition; each warp keeps its own online softmax; the 4 states are
//           merged in shared memory at the end. A sequence with one partition is normalised and
//           written directly; otherwise the partition's (max, sum, unnormalised output) go to a
//           scratch buffer.
//   merge:  one block per (sequence, query head) combines the partitions (log-sum-exp, exp2).
//
// Tensor cores (mma.sync m16n8k16 bf16 -> fp32), all operands straight from registers, no
// shared-memory staging of K/V:
//   S = Q K^T    M = query heads (the group, <= 8 real rows; rows 8-15 are the zero registers),
//                N = 8 tokens, K = 16 dims. A (Q) is loaded once per block; B (K^T) is exactly a
//                K row in its natural layout: lane (r = lane/4, j = lane%4) needs 2-element pairs
//                of token r. Since a dot product may sum its dims in any order, the dims are
//                permuted so that each lane loads 16 contiguous bytes: the quad of token r loads
//                64 contiguous bytes per instruction (lane j: dims 32i+8j..32i+8j+7), and
//                logical k-chunk 2i+h takes words {x,y} (h=0) or {z,w} (h=1). Q uses the same
//                permutation.
//   O^T = V^T P^T  (swapped so that P needs no data movement) M = 16 dims, N = 8 query heads,
//                K = 16 tokens. B (P^T) is exactly the C fragment of S for rows 0-7 (lane r holds
//                head r, tokens 2j, 2j+1 of each 8-token tile), split into two bf16 parts (hi + lo,
//                two MMAs into the same accumulator; see the precision note). A (V^T) needs
//                pairs along tokens: lane (r, j) loads 16 contiguous bytes (dims 64i+8r..+7) of
//                tokens 2j, 2j+1, 2j+8, 2j+9 (8 lanes of a token read 128 contiguous bytes) and
//                one PRMT per register interleaves two tokens' bf16s. The output dim permutation
//                that falls out gives each lane 8 contiguous dims of heads 2j and 2j+1.
// Instruction budget. At 4.8 TB/s an SM receives ~18 B/cycle (132 SMs, ~1.98 GHz), so a 16-token
// chunk (8 KB of K+V per kv head at head_dim 128) arrives every ~445 cycles = ~1780 issue slots
// (4 schedulers). The compiled loop (sm_90a SASS, head_dim 128, pages of 16) spends ~300
// instructions per chunk and warp: 16 LDG.128, 32 HMMA.16816 (16 for S, 2 x 8 for the hi / lo
// halves of P V), 36 PRMT, 46 FMUL (32 of them the accumulator rescale), 7 MUFU.EX2, 4 SHFL, ~60
// IMAD/LEA of addressing, the rest compares and moves: ~18% of the issue slots. HMMA at ~2 cycles
// per SM each is ~64 cycles per chunk (~14%), MUFU ~14 cycles. CUDA-core FMAs over the group would cost 2*G*D/32 = 64 FFMA issue slots per
// token at G = 8 (1024 per chunk, ~60% of the budget) plus the dim reductions (shuffles or
// shared memory) that made v1 slow; MMAs avoid both and pad the group to the tile for free.
//
// Resources (ptxas -v, sm_90a): the head_dim-128 kernels (the benchmark path) use 255 registers
// (238 before the hi / lo split of P), 18.7 KB static shared memory, no spills: 2 blocks = 8 warps
// per SM (the __launch_bounds__ cap). head_dim 64: 143 registers. head_dim 256 (not double
// buffered): 234; element-wise fallback: 255; merge kernel: 32.
//
// Memory parallelism: every K/V byte is read once per (sequence, kv head) for all heads of the
// group (group <= 8 in one block; a larger group is split into chunks of 8 query heads, which
// re-reads K/V per chunk: a fallback no benchmark or test shape takes). The warp loop is double
// buffered in registers: the loads of chunk c+1 (16 KB for the two buffers at head_dim 128) are
// issued before chunk c is computed, so a warp has 8-16 KB outstanding nearly all the time; at
// 2 blocks (8 warps) per SM that is 64-128 KB per SM, 8-17 MB on the chip, 2-3x what 4.8 TB/s at
// ~1-1.5 us latency needs. Loads use ld.global.nc.L1::no_allocate (streamed once). The block
// table slice of the partition (<= kPartition + 2 entries) is read into shared memory once, in
// parallel with seq_lens and Q, so the per-chunk page lookup is a shared-memory load, not a
// dependent global round trip. With block_size % 16 == 0 a 16-token chunk lies in one page: one
// lookup per chunk; other block sizes look up each token. A token slot >= the partition end is
// never read: its lane reads the chunk's first token's row instead (live, so finite; no
// predication or zero fill in the loop), its score is masked to -inf and its probability is 0.
//
// Work split: 512-token partitions give 2000-5000 non-empty blocks (8000-20000 warps) on the
// benchmark shapes (64 seqs x 8 kv heads x <= 16 partitions; 256 x 8 x <= 4; 32 x 32 x <= 8).
//
// General fallback: head_dim <= 64 / <= 128 / <= 256 use padded tiles DP = 64 / 128 / 256, the
// dims past head_dim masked at 16-byte granularity (head_dim % 8 == 0, 16-byte aligned pointers);
// any other head_dim or alignment runs the DP = 256 tile with element-wise guarded loads.
// head_dim > 128 is not double buffered (registers); it loads K, computes S, then loads V.
//
// ---------------------------------------------------------------------------------------------
// Precision note
// ---------------------------------------------------------------------------------------------
// The judge allows 0.016 |ref| + 0.01 rms(ref) per element. Rounding the output to bf16 alone
// costs up to 2^-9 |ref| (ratio <= 0.25; the fp32 CUDA-core v1 measures 0.18-0.21 on the
// benchmarks), so everything before it must be much more precise than bf16. Checked, per source:
//  (1) P rounded to bf16 for the P V MMA (the first version did, as flash kernels do): relative
//      error up to 2^-9 per term, i.e. up to 2^-9 |p v| per token, not scaled down by |ref| -- on
//      the benchmark data (score std up to ~2, softmax concentrated on a handful of tokens, outputs
//      near 0 next to an rms of ~0.2-0.3) that is a sizeable fraction of 0.01 rms(ref): measured
//      worst err/allowed 0.31-1.18 (one element out of tolerance on gqa8-256seq-2k), and a host
//      emulation of that rounding reproduces ~0.55 on a 32-sequence sample. Fixed: P = hi + lo,
//      hi = bf16(p), lo = bf16(p - float(hi)) (the subtraction is exact in fp32), and the P V MMA
//      is issued twice into the same fp32 accumulator (lo first, then hi) with the same V^T
//      fragment. The residual is ~2^-18 relative per term; the emulation of the split gives the
//      same worst ratio as fp32 P (0.19-0.22). Cost: 8 more HMMA and ~8 ALU instructions per
//      16-token chunk and warp (HMMA ~11% -> ~14% of the issue slots), +17 registers.
//  (2) Q is never pre-scaled or re-rounded: S is computed from the original bf16 q and k (bf16
//      products are exact in the MMA, fp32 accumulation), and the scale log2(e)/sqrt(d) multiplies
//      the fp32 scores. Nothing to fix.
//  (3) The row sum l: it sums the fp32 p, while the P V product used bf16(p), an inconsistency of
//      up to 2^-9 per term between numerator and denominator (part of (1)). With the split the P
//      V product uses hi + lo = p to ~2^-18, so summing the fp32 p is consistent.
//  (4) Merges: the 4 warp states of a block and the partitions of a sequence are combined in fp32
//      (max, exp2 weights, weighted sums, one division), and the unnormalised partition outputs are
//      kept in fp32 scratch; the only rounding to bf16 is the final store. Nothing to fix.
// Softmax statistics are fp32 in the exp2 domain throughout.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
// Tuning knobs (defaults are the design above): tokens per block, and an L2 prefetch-size hint
// on the K/V loads (0: none, else 64 / 128 / 256 bytes).
#ifndef PA_V2_PARTITION
#define PA_V2_PARTITION 512
#endif
#ifndef PA_V2_L2_HINT
#define PA_V2_L2_HINT 0
#endif
constexpr int kPartition = PA_V2_PARTITION;  // tokens per block
constexpr int kChunk = 16;       // tokens per warp step
constexpr int kHeadTile = 8;     // query heads per block (N of the P V product)
constexpr float kLog2e = 1.4426950408889634f;

static_assert(kPartition % (kChunk * kWarps) == 0, "partition must be a whole number of warp steps");
static_assert(kPartition <= 4096, "s_pages holds kPartition + 2 entries");

// 16 bytes, read once: no L1 allocation.
__device__ __forceinline__ uint4 ld_stream(const void* ptr) {
    uint4 v;
#if PA_V2_L2_HINT == 64 || PA_V2_L2_HINT == 128 || PA_V2_L2_HINT == 256
#define PA_V2_STR2(x) #x
#define PA_V2_STR(x) PA_V2_STR2(x)
    asm volatile("ld.global.nc.L1::no_allocate.L2::" PA_V2_STR(PA_V2_L2_HINT) "B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(ptr));
#else
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(ptr));
#endif
    return v;
}

// 8 bf16 at dims d .. d+7 of a row (p points at dim d). FULL: head_dim == DP, nothing to mask.
// VEC: 16-byte load, zeros if the piece lies past head_dim (head_dim % 8 == 0). Else element-wise.
template <bool VEC, bool FULL>
__device__ __forceinline__ uint4 load_piece(const __nv_bfloat16* p, int d, int head_dim) {
    if constexpr (FULL) {
        return ld_stream(p);
    } else if constexpr (VEC) {
        uint4 v = make_uint4(0u, 0u, 0u, 0u);
        if (d < head_dim) v = ld_stream(p);
        return v;
    } else {
        const unsigned short* bits = reinterpret_cast<const unsigned short*>(p);
        uint32_t w[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            uint32_t lo = d + 2 * e < head_dim ? bits[2 * e] : 0u;
            uint32_t hi = d + 2 * e + 1 < head_dim ? bits[2 * e + 1] : 0u;
            w[e] = lo | (hi << 16);
        }
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
}

__device__ __forceinline__ void mma_bf16(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                         uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t word(const uint4& v, int w) {
    return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}

// Everything a warp needs to find and read its tokens.
struct Walk {
    const __nv_bfloat16* k_cache;
    const __nv_bfloat16* v_cache;
    const int* pages;  // shared memory: block_table[seq, first_page ...]
    int first_page;
    int block_size;
    int bs_log2;  // log2(block_size) if a power of two, else -1
    int num_kv_heads;
    int kv_head;
    int head_dim;
    int end;   // first token past the partition
    int r, j;  // lane / 4, lane % 4
    // PAGE16 (a 16-token chunk lies in one page): element offsets, from the start of the chunk's
    // first row, of this lane's pieces: K tokens 8n + r at dim 8j, V tokens 2j, 2j+1, 2j+8, 2j+9
    // at dim 8r. Invalid tokens are redirected to the chunk's first token (offset 8j / 8r).
    int koff[2];
    int voff[4];
};

// Element offset of token t's row (this sequence, this kv head) in the cache.
__device__ __forceinline__ long long row_elem(const Walk& w, int t) {
    const int blk = w.bs_log2 >= 0 ? t >> w.bs_log2 : t / w.block_size;
    const int page = w.pages[blk - w.first_page];
    return (((long long)page * w.block_size + (t - blk * w.block_size)) * w.num_kv_heads + w.kv_head) * w.head_dim;
}

// K of tokens t0 + 8n + r (n = 0, 1): lane j's dims 32i + 8j .. +7. `valid` = end - t0 >= 1:
// a token past the end reads token t0's row instead (never a row past the partition; its score is
// masked to -inf, so whatever it holds only needs to be finite, and a live row is).
template <int DP, bool VEC, bool FULL, bool PAGE16>
__device__ __forceinline__ void load_k(uint4 (&k)[2][DP / 32], const Walk& w, int t0, int valid) {
    if constexpr (PAGE16) {
        const __nv_bfloat16* base = w.k_cache + row_elem(w, t0);
#pragma unroll
        for (int n = 0; n < 2; ++n) {
            const __nv_bfloat16* p = base + (8 * n + w.r < valid ? w.koff[n] : 8 * w.j);
#pragma unroll
            for (int i = 0; i < DP / 32; ++i) k[n][i] = load_piece<VEC, FULL>(p + 32 * i, 32 * i + 8 * w.j, w.head_dim);
        }
    } else {
#pragma unroll
        for (int n = 0; n < 2; ++n) {
            const int dt = 8 * n + w.r;
            const __nv_bfloat16* p = w.k_cache + row_elem(w, t0 + (dt < valid ? dt : 0)) + 8 * w.j;
#pragma unroll
            for (int i = 0; i < DP / 32; ++i) k[n][i] = load_piece<VEC, FULL>(p + 32 * i, 32 * i + 8 * w.j, w.head_dim);
        }
    }
}

// V of tokens t0 + {2j, 2j+1, 2j+8, 2j+9}: lane r's dims 64i + 8r .. +7. Same redirection (its
// probability is exactly 0, and 0 * finite = 0).
template <int DP, bool VEC, bool FULL, bool PAGE16>
__device__ __forceinline__ void load_v(uint4 (&v)[4][DP / 64], const Walk& w, int t0, int valid) {
    const __nv_bfloat16* base = nullptr;
    if constexpr (PAGE16) base = w.v_cache + row_elem(w, t0);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
        const int dt = 2 * w.j + (u & 1) + 8 * (u >> 1);
        const __nv_bfloat16* p;
        if constexpr (PAGE16) p = base + (dt < valid ? w.voff[u] : 8 * w.r);
        else p = w.v_cache + row_elem(w, t0 + (dt < valid ? dt : 0)) + 8 * w.r;
#pragma unroll
        for (int i = 0; i < DP / 64; ++i) v[u][i] = load_piece<VEC, FULL>(p + 64 * i, 64 * i + 8 * w.r, w.head_dim);
    }
}

// Per-warp softmax state and the O^T accumulator (m-tile 4i+w: rows = dims 64i+8r+2w (c0, c1)
// and 64i+8r+2w+1 (c2, c3); cols = heads 2j (c0, c2), 2j+1 (c1, c3)).
template <int DP>
struct State {
    float o[DP / 16][4];
    float m;  // running max of head r (exp2 domain), same in the 4 lanes of a quad
    float l;  // this lane's share of the running sum of head r
};

// S = Q K^T for one chunk, then the online-softmax update; returns P^T's B registers as a bf16 high
// part pb[0] and a bf16 low part pb[1] (p = hi + lo to ~2^-17 relative; see the precision note).
template <int DP>
__device__ __forceinline__ void scores_and_softmax(State<DP>& st, const uint4 (&q)[DP / 32],
                                                   const uint4 (&k)[2][DP / 32], int t0, const Walk& w,
                                                   float qk_scale, uint32_t (&pb)[2][2]) {
    constexpr int KI = DP / 32;
    // Two accumulator sets per token tile (even / odd k-chunks) halve the MMA dependency chain.
    float s[2][2][4];
#pragma unroll
    for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int e = 0; e < 4; ++e) s[n][h][e] = 0.0f;
#pragma unroll
    for (int i = 0; i < KI; ++i) {
#pragma unroll
        for (int n = 0; n < 2; ++n) {
            mma_bf16(s[n][0], q[i].x, 0u, q[i].y, 0u, k[n][i].x, k[n][i].y);
            mma_bf16(s[n][1], q[i].z, 0u, q[i].w, 0u, k[n][i].z, k[n][i].w);
        }
    }
    // Lane (r, j) holds head r, tokens t0 + 8n + 2j + e.
    float x[2][2];
    float mloc = -CUDART_INF_F;
#pragma unroll
    for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            int t = t0 + 8 * n + 2 * w.j + e;
            float val = (s[n][0][e] + s[n][1][e]) * qk_scale;
            x[n][e] = t < w.end ? val : -CUDART_INF_F;
            mloc = fmaxf(mloc, x[n][e]);
        }
    mloc = fmaxf(mloc, __shfl_xor_sync(0xffffffffu, mloc, 1));
    mloc = fmaxf(mloc, __shfl_xor_sync(0xffffffffu, mloc, 2));
    const float m_new = fmaxf(st.m, mloc);  // finite: token t0 < end is always valid
    const float alpha = exp2f(st.m - m_new);  // 0 on the first chunk (m = -inf)
    st.m = m_new;
    float p[2][2];
    float psum = 0.0f;
#pragma unroll
    for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            p[n][e] = exp2f(x[n][e] - m_new);
            psum += p[n][e];
        }
    st.l = st.l * alpha + psum;
    // O^T columns are heads 2j and 2j+1, whose alphas live in quads 2j and 2j+1.
    const float a_even = __shfl_sync(0xffffffffu, alpha, 8 * w.j);
    const float a_odd = __shfl_sync(0xffffffffu, alpha, 8 * w.j + 4);
#pragma unroll
    for (int mt = 0; mt < DP / 16; ++mt) {
        st.o[mt][0] *= a_even;
        st.o[mt][1] *= a_odd;
        st.o[mt][2] *= a_even;
        st.o[mt][3] *= a_odd;
    }
    // P^T rows k = 2j, 2j+1 (tokens of tile 0) and 2j+8, 2j+9 (tile 1), col = head r. The residual
    // p - float(hi) is exact in fp32 (hi is p's nearest bf16), then rounded to bf16 itself.
#pragma unroll
    for (int n = 0; n < 2; ++n) {
        const __nv_bfloat162 hi = __floats2bfloat162_rn(p[n][0], p[n][1]);
        const float2 hf = __bfloat1622float2(hi);
        const __nv_bfloat162 lo = __floats2bfloat162_rn(p[n][0] - hf.x, p[n][1] - hf.y);
        pb[0][n] = *reinterpret_cast<const uint32_t*>(&hi);
        pb[1][n] = *reinterpret_cast<const uint32_t*>(&lo);
    }
}

// O^T += V^T P^T for one chunk, P^T = hi + lo: two MMAs into the same fp32 accumulator (the small
// part first), sharing the V^T fragment.
template <int DP>
__device__ __forceinline__ void accumulate_pv(State<DP>& st, const uint4 (&v)[4][DP / 64],
                                              const uint32_t (&pb)[2][2]) {
#pragma unroll
    for (int i = 0; i < DP / 64; ++i)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            uint32_t t0 = word(v[0][i], c), t1 = word(v[1][i], c);  // tokens 2j, 2j+1
            uint32_t t8 = word(v[2][i], c), t9 = word(v[3][i], c);  // tokens 2j+8, 2j+9
            uint32_t a0 = __byte_perm(t0, t1, 0x5410);  // dim 64i+8r+2c,   tokens 2j, 2j+1
            uint32_t a1 = __byte_perm(t0, t1, 0x7632);  // dim 64i+8r+2c+1, tokens 2j, 2j+1
            uint32_t a2 = __byte_perm(t8, t9, 0x5410);
            uint32_t a3 = __byte_perm(t8, t9, 0x7632);
            mma_bf16(st.o[4 * i + c], a0, a1, a2, a3, pb[1][0], pb[1][1]);
            mma_bf16(st.o[4 * i + c], a0, a1, a2, a3, pb[0][0], pb[0][1]);
        }
}

template <int DP, bool VEC, bool FULL, bool PAGE16, bool PIPE>
__global__ void __launch_bounds__(kThreads, PIPE ? 2 : 1) attend(
    const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k_cache,
    const __nv_bfloat16* __restrict__ v_cache, const int* __restrict__ block_table, const int* __restrict__ seq_lens,
    __nv_bfloat16* __restrict__ out, float* __restrict__ part_acc, float* __restrict__ part_stats, int num_heads,
    int num_kv_heads, int head_dim, int block_size, int bs_log2, int max_blocks, int group, int max_parts,
    float qk_scale) {
    static_assert(!FULL || VEC, "FULL implies VEC");
    constexpr int KI = DP / 32;
    constexpr int VI = DP / 64;
    __shared__ int s_pages[kPartition + 2];
    __shared__ float s_m[kWarps][kHeadTile];
    __shared__ float s_l[kWarps][kHeadTile];
    __shared__ __align__(16) float s_o[kWarps][kHeadTile][DP];

    const int seq = blockIdx.x / num_kv_heads;
    const int kv_head = blockIdx.x - seq * num_kv_heads;
    const int part = blockIdx.y;
    const int start = part * kPartition;
    const int length = seq_lens[seq];  // issued first; the table loads below do not wait for it

    // The block table slice of this partition (entries past the sequence are valid ids, and
    // reading the table itself is harmless; only cache rows past the length must not be read).
    const int first_page = start / block_size;
    const int npages = min((start % block_size + kPartition - 1) / block_size + 1, max_blocks - first_page);
    for (int i = threadIdx.x; i < npages; i += kThreads)
        s_pages[i] = block_table[(long long)seq * max_blocks + first_page + i];

    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int r = lane >> 2, j = lane & 3;
    const int head0 = kv_head * group + blockIdx.z * kHeadTile;
    const int heads = min(kHeadTile, group - blockIdx.z * kHeadTile);

    // Q of head r (zero past the group chunk), same dim permutation as K.
    uint4 qf[KI];
    {
        const bool q_ok = r < heads;
        const __nv_bfloat16* qrow = q + ((long long)seq * num_heads + head0 + (q_ok ? r : 0)) * head_dim;
#pragma unroll
        for (int i = 0; i < KI; ++i) {
            const int d = 32 * i + 8 * j;
            if constexpr (VEC) {
                qf[i] = (q_ok && d < head_dim) ? __ldg(reinterpret_cast<const uint4*>(qrow + d))
                                               : make_uint4(0u, 0u, 0u, 0u);
            } else {
                qf[i] = q_ok ? load_piece<false, false>(qrow + d, d, head_dim) : make_uint4(0u, 0u, 0u, 0u);
            }
        }
    }

    if (start >= length) return;  // uniform over the block, before any barrier
    const int end = min(start + kPartition, length);
    __syncthreads();  // s_pages

    Walk w;
    w.k_cache = k_cache;
    w.v_cache = v_cache;
    w.pages = s_pages;
    w.first_page = first_page;
    w.block_size = block_size;
    w.bs_log2 = bs_log2;
    w.num_kv_heads = num_kv_heads;
    w.kv_head = kv_head;
    w.head_dim = head_dim;
    w.end = end;
    w.r = r;
    w.j = j;
    if constexpr (PAGE16) {
        const int row_stride = num_kv_heads * head_dim;  // elements between consecutive slots of a page
#pragma unroll
        for (int n = 0; n < 2; ++n) w.koff[n] = (8 * n + r) * row_stride + 8 * j;
#pragma unroll
        for (int u = 0; u < 4; ++u) w.voff[u] = (2 * j + (u & 1) + 8 * (u >> 1)) * row_stride + 8 * r;
    }
    State<DP> st;
#pragma unroll
    for (int mt = 0; mt < DP / 16; ++mt)
#pragma unroll
        for (int e = 0; e < 4; ++e) st.o[mt][e] = 0.0f;
    st.m = -CUDART_INF_F;
    st.l = 0.0f;

    constexpr int kStride = kChunk * kWarps;
    int t0 = start + kChunk * warp;
    if constexpr (PIPE) {
        // Double buffer in registers: chunk c+1's loads are in flight while chunk c is computed.
        uint4 ka[2][KI], va[4][VI], kb[2][KI], vb[4][VI];
        if (t0 < end) {
            load_k<DP, VEC, FULL, PAGE16>(ka, w, t0, end - t0);
            load_v<DP, VEC, FULL, PAGE16>(va, w, t0, end - t0);
        }
        while (t0 < end) {
            int t1 = t0 + kStride;
            if (t1 < end) {
                load_k<DP, VEC, FULL, PAGE16>(kb, w, t1, end - t1);
                load_v<DP, VEC, FULL, PAGE16>(vb, w, t1, end - t1);
            }
            uint32_t pb[2][2];
            scores_and_softmax<DP>(st, qf, ka, t0, w, qk_scale, pb);
            accumulate_pv<DP>(st, va, pb);
            t0 = t1;
            if (t0 >= end) break;
            t1 = t0 + kStride;
            if (t1 < end) {
                load_k<DP, VEC, FULL, PAGE16>(ka, w, t1, end - t1);
                load_v<DP, VEC, FULL, PAGE16>(va, w, t1, end - t1);
            }
            scores_and_softmax<DP>(st, qf, kb, t0, w, qk_scale, pb);
            accumulate_pv<DP>(st, vb, pb);
            t0 = t1;
        }
    } else {
        for (; t0 < end; t0 += kStride) {
            uint4 kc[2][KI];
            load_k<DP, VEC, FULL, PAGE16>(kc, w, t0, end - t0);
            uint32_t pb[2][2];
            scores_and_softmax<DP>(st, qf, kc, t0, w, qk_scale, pb);
            uint4 vc[4][VI];
            // The V loads depend on the softmax result (the select is an identity: m is finite
            // here), so that they are not hoisted above the S MMAs: K and V never live together.
            load_v<DP, VEC, FULL, PAGE16>(vc, w, t0, st.m > -CUDART_INF_F ? end - t0 : 1);
            accumulate_pv<DP>(st, vc, pb);
        }
    }

    // Warp states -> shared memory (a warp without tokens leaves m = -inf, l = 0, o = 0).
    float l = st.l;
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    if (j == 0) {
        s_m[warp][r] = st.m;
        s_l[warp][r] = l;
    }
#pragma unroll
    for (int i = 0; i < VI; ++i) {
        float* even = &s_o[warp][2 * j][64 * i + 8 * r];
        float* odd = &s_o[warp][2 * j + 1][64 * i + 8 * r];
        *reinterpret_cast<float4*>(even) = make_float4(st.o[4 * i][0], st.o[4 * i][2], st.o[4 * i + 1][0], st.o[4 * i + 1][2]);
        *reinterpret_cast<float4*>(even + 4) = make_float4(st.o[4 * i + 2][0], st.o[4 * i + 2][2], st.o[4 * i + 3][0], st.o[4 * i + 3][2]);
        *reinterpret_cast<float4*>(odd) = make_float4(st.o[4 * i][1], st.o[4 * i][3], st.o[4 * i + 1][1], st.o[4 * i + 1][3]);
        *reinterpret_cast<float4*>(odd + 4) = make_float4(st.o[4 * i + 2][1], st.o[4 * i + 2][3], st.o[4 * i + 3][1], st.o[4 * i + 3][3]);
    }
    __syncthreads();

    const bool single = length <= kPartition;
    for (int item = threadIdx.x; item < heads * head_dim; item += kThreads) {
        const int g = item / head_dim, d = item - g * head_dim;
        float top = -CUDART_INF_F;
#pragma unroll
        for (int s = 0; s < kWarps; ++s) top = fmaxf(top, s_m[s][g]);  // finite: warp 0 had tokens
        float total = 0.0f, value = 0.0f;
#pragma unroll
        for (int s = 0; s < kWarps; ++s) {
            const float wt = exp2f(s_m[s][g] - top);  // exp2(-inf) = 0 for an idle warp
            total += wt * s_l[s][g];
            value += wt * s_o[s][g][d];
        }
        const long long head_row = (long long)seq * num_heads + head0 + g;
        if (single) {
            out[head_row * head_dim + d] = __float2bfloat16_rn(value / total);
        } else {
            const long long slot = head_row * max_parts + part;
            part_acc[slot * head_dim + d] = value;
            if (d == 0) {
                part_stats[2 * slot] = top;
                part_stats[2 * slot + 1] = total;
            }
        }
    }
}

// One block per (sequence, query head) of a sequence with more than one partition.
__global__ void __launch_bounds__(128) merge_partitions(const int* __restrict__ seq_lens,
                                                        __nv_bfloat16* __restrict__ out,
                                                        const float* __restrict__ part_acc,
                                                        const float* __restrict__ part_stats, int num_heads,
                                                        int head_dim, int max_parts) {
    __shared__ float s_w[64];
    const long long head_row = blockIdx.x;  // seq * num_heads + head
    const int parts = (seq_lens[head_row / num_heads] + kPartition - 1) / kPartition;
    if (parts <= 1) return;  // written by attend
    const float* stats = part_stats + 2 * head_row * max_parts;
    const float* acc = part_acc + head_row * max_parts * head_dim;
    float top = -CUDART_INF_F;
    for (int p = 0; p < parts; ++p) top = fmaxf(top, stats[2 * p]);
    float total = 0.0f;
    for (int p = 0; p < parts; ++p) total += exp2f(stats[2 * p] - top) * stats[2 * p + 1];
    const float inv = 1.0f / total;
    if (parts <= 64) {
        // Weights once in shared memory, then every dim is a plain weighted sum.
        for (int p = threadIdx.x; p < parts; p += blockDim.x) s_w[p] = exp2f(stats[2 * p] - top) * inv;
        __syncthreads();
        for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
            float value = 0.0f;
            for (int p = 0; p < parts; ++p) value += s_w[p] * acc[(long long)p * head_dim + d];
            out[head_row * head_dim + d] = __float2bfloat16_rn(value);
        }
    } else {
        for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
            float value = 0.0f;
            for (int p = 0; p < parts; ++p) value += exp2f(stats[2 * p] - top) * acc[(long long)p * head_dim + d];
            out[head_row * head_dim + d] = __float2bfloat16_rn(value * inv);
        }
    }
}

template <int DP, bool VEC, bool FULL, bool PAGE16, bool PIPE>
void launch(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
            const int* block_table, const int* seq_lens, __nv_bfloat16* out, float* part_acc, float* part_stats,
            int num_seqs, int num_heads, int num_kv_heads, int head_dim, int block_size, int bs_log2, int max_blocks,
            int max_parts, float qk_scale) {
    const int group = num_heads / num_kv_heads;
    dim3 grid(num_seqs * num_kv_heads, max_parts, (group + kHeadTile - 1) / kHeadTile);
    attend<DP, VEC, FULL, PAGE16, PIPE><<<grid, kThreads>>>(q, k_cache, v_cache, block_table, seq_lens, out,
                                                           part_acc, part_stats, num_heads, num_kv_heads, head_dim,
                                                           block_size, bs_log2, max_blocks, group, max_parts,
                                                           qk_scale);
}

}  // namespace

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                      const int* block_table, const int* seq_lens, __nv_bfloat16* out, int num_seqs, int num_heads,
                      int num_kv_heads, int head_dim, int block_size, int max_blocks_per_seq) {
    if (num_seqs <= 0 || num_heads <= 0 || num_kv_heads <= 0 || head_dim <= 0 || head_dim > 256) return;
    const int max_len = max_blocks_per_seq * block_size;
    const int max_parts = (max_len + kPartition - 1) / kPartition;
    const float qk_scale = kLog2e / sqrtf((float)head_dim);

    // Partition scratch: grown on demand, kept for later calls (allocation is not free).
    static float* scratch = nullptr;
    static size_t scratch_floats = 0;
    float* part_acc = nullptr;
    float* part_stats = nullptr;
    if (max_parts > 1) {
        const size_t rows = (size_t)num_seqs * num_heads * max_parts;
        const size_t need = rows * head_dim + 2 * rows;
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

    const bool aligned = ((reinterpret_cast<uintptr_t>(q) | reinterpret_cast<uintptr_t>(k_cache) |
                           reinterpret_cast<uintptr_t>(v_cache)) & 15) == 0;
    const bool vec = aligned && head_dim % 8 == 0;
    const bool page16 = block_size % kChunk == 0;
    int bs_log2 = -1;
    for (int b = 0; b < 31; ++b)
        if (block_size == (1 << b)) bs_log2 = b;
#define GS_LAUNCH(DP, VEC, FULL, PAGE16, PIPE)                                                                    \
    launch<DP, VEC, FULL, PAGE16, PIPE>(q, k_cache, v_cache, block_table, seq_lens, out, part_acc, part_stats,     \
                                        num_seqs, num_heads, num_kv_heads, head_dim, block_size, bs_log2,         \
                                        max_blocks_per_seq, max_parts, qk_scale)
    // head_dim 128 with pages of 16 (all benchmarks) takes the first branch.
    if (vec && head_dim == 128) {
        if (page16) GS_LAUNCH(128, true, true, true, true);
        else GS_LAUNCH(128, true, true, false, true);
    } else if (vec && head_dim == 64) {
        if (page16) GS_LAUNCH(64, true, true, true, true);
        else GS_LAUNCH(64, true, true, false, true);
    } else if (vec && head_dim < 64) {
        GS_LAUNCH(64, true, false, false, true);
    } else if (vec && head_dim < 128) {
        GS_LAUNCH(128, true, false, false, true);
    } else if (vec) {
        GS_LAUNCH(256, true, false, false, false);
    } else {
        GS_LAUNCH(256, false, false, false, false);
    }
#undef GS_LAUNCH
    if (max_parts > 1) {
        merge_partitions<<<num_seqs * num_heads, 128>>>(seq_lens, out, part_acc, part_stats, num_heads, head_dim,
                                                        max_parts);
    }
}
