// Candidate CUDA expert for top-p sampling: a thread-block cluster per row, the row read from
// DRAM once into the cluster's shared memory, a two-level radix select in integer units whose
// histograms are combined through distributed shared memory, and the sample found by one scan.
// It compiles for sm_90a; it is NOT yet run or measured on a GPU.
//
// Design. Every probability is a multiple of 2^-20, so u = x * 2^20 is an exact integer (0 ..
// 2^20) and every sum below is exact in int. A row is split into C contiguous slices (C = 1, 2,
// 4 or 8: at least enough that a slice fits in ~96 KB of shared memory, and more when the batch
// is too small to fill the SMs, so batch 1 runs on 8 SMs), one block of 512 threads per slice,
// the C blocks of a row forming one cluster.
//   phase 1  the block reads its slice from global memory (16-byte loads, 8 in flight a thread),
//            converts it to units, keeps them in its shared memory and adds the mass of each
//            high-bit bucket (u >> 10, buckets 1 .. 1024; bucket 0, the tail, needs no mass)
//            with shared atomics. Cluster barrier.
//   phase 2  every block sums the C bucket histograms through DSMEM and runs the same suffix
//            scan from the top bucket, so all C blocks agree on the bucket where the mass from
//            the top reaches need = ceil(p * 2^20) and on the mass above it; then it counts the
//            low 10 bits of its own slice's tokens inside that bucket (shared memory only).
//            Cluster barrier.
//   phase 3  every block sums the C low-bit counts (DSMEM), scans them: t, the mass `above` of
//            the tokens > t, the number at t, take = the fewest tokens at t (lowest indices
//            first) with above + take * t >= need, S = above + take * t and the target u * S in
//            double (exact: a 24-bit by 21-bit product). Each thread owns a contiguous segment
//            of its block's slice and counts, in one shared-memory pass, its tokens at t and
//            its mass above t; the block's totals go through DSMEM (cluster barrier) so each
//            block knows how many tokens at t and how much nucleus mass precede its slice. Two
//            block scans give each thread the tokens at t and nucleus mass before its segment;
//            the one thread whose segment holds the crossing of the target walks it in token
//            order and writes the token id. A last cluster barrier keeps every block's shared
//            memory alive until the others have read it.
// Passes over memory: every probability is read from DRAM exactly once, at every shape; the
// later passes (the low-bit count, the segment statistics, one segment's walk) read shared
// memory. At batch 256 x 128256 that is 131 MB from DRAM against the current expert's three
// passes, most of them from DRAM because its 256 resident rows (131 MB) do not fit the 50 MB
// L2 (pass 3 stops at the sample, about half a row on average): ~2.5 x 131 MB. At batch 1 the
// 0.5 MB row is read by 8 SMs once instead of three times by one SM, with four cluster barriers.
// Exactness: the same integer decisions as the current expert. Membership is u > t, or u == t
// and fewer than `take` tokens at t before it in token order (the tie rule: lower index first);
// the sample is the first token whose running nucleus mass (an exact int) exceeds target, the
// reference's count of running sums <= u * S.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define THREADS 512
#define WARPS (THREADS / 32)
#define LOW_BITS 10
#define LOW (1 << LOW_BITS)         // values per bucket; buckets 1 .. 1024 above the tail
#define UNITS_F 1048576.0f           // 2^20
#define SLICE_CAP 24576              // tokens per block that keep two blocks per SM (96 KB + 8 KB)
#define MAX_CLUSTER 8                // the portable cluster size
#define UNROLL 8                     // 16-byte loads in flight per thread in phase 1
#define MAX_DYN_SMEM (160 * 1024)    // vocab <= 2^18 and C = 8: at most 32768 + 4 ints a slice

// Inclusive scan in thread order; *total gets the block's sum. scratch: WARPS ints.
__device__ __forceinline__ int block_scan(int v, int* scratch, int* total) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        int n = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += n;
    }
    __syncthreads();  // the previous user of scratch is done with it
    if (lane == 31) scratch[warp] = v;
    __syncthreads();
    int offset = 0, sum = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        int s = scratch[w];
        if (w < warp) offset += s;
        sum += s;
    }
    *total = sum;
    return v + offset;
}

__device__ __forceinline__ int to_units(float x) { return __float2int_rn(x * UNITS_F); }

__global__ void __launch_bounds__(THREADS, 2)
    top_p_cluster_kernel(const float* __restrict__ probs, const float* __restrict__ top_p,
                         const float* __restrict__ uniforms, int* __restrict__ token_ids, int vocab, int C,
                         int slice) {
    extern __shared__ int4 dyn_smem[];
    int* units = reinterpret_cast<int*>(dyn_smem);  // the slice in units, 16-byte aligned like global memory
    __shared__ int bucket_mass[LOW + 1];            // read by the other blocks of the cluster
    __shared__ int low_count[LOW];                  // read by the other blocks of the cluster
    __shared__ int block_totals[2];                 // tokens at t, mass above t: read by the others
    __shared__ int scratch[WARPS];
    __shared__ int found[3];
    __shared__ long long before[2];                 // tokens at t and nucleus mass before this slice

    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    const int row = blockIdx.x / C;
    const int tid = threadIdx.x;

    // This block's tokens: [first, first + len) of the row. In shared memory token k of the
    // slice sits at k + shift, so that a 16-byte aligned group of 4 in global memory is a
    // 16-byte aligned int4 in shared memory; the positions around it hold 0 (never counted).
    const long long row_start = (long long)row * vocab;
    const int first = rank * slice;
    const int len = max(0, min(vocab - first, slice));
    const long long g0 = row_start + first;
    const int shift = (int)(g0 & 3);
    const long long g_aligned = g0 - shift;  // multiple of 4
    const int positions = (shift + len + 3) & ~3;
    const int groups = positions / 4;

    const int need = (int)ceilf(top_p[row] * UNITS_F);  // nucleus mass >= p <=> units >= need

    for (int i = tid; i <= LOW; i += THREADS) bucket_mass[i] = 0;
    for (int i = tid; i < LOW; i += THREADS) low_count[i] = 0;
    __syncthreads();

    // Phase 1: the slice from DRAM into shared memory, and the mass of each high-bit bucket.
    const float4* probs4 = reinterpret_cast<const float4*>(probs);
    for (int g_base = 0; g_base < groups; g_base += THREADS * UNROLL) {
        float4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) {
            const int g = g_base + k * THREADS + tid;
            v[k] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (g < groups) {
                const int p0 = 4 * g;  // position of the group's first element
                if (p0 >= shift && p0 + 4 <= shift + len) {
                    v[k] = probs4[(g_aligned >> 2) + g];
                } else {  // the slice's first or last group: only its own tokens
                    float e[4];
#pragma unroll
                    for (int q = 0; q < 4; ++q) {
                        const int p = p0 + q;
                        e[q] = (p >= shift && p < shift + len) ? probs[g_aligned + p] : 0.f;
                    }
                    v[k] = make_float4(e[0], e[1], e[2], e[3]);
                }
            }
        }
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) {
            const int g = g_base + k * THREADS + tid;
            if (g < groups) {
                int4 u = make_int4(to_units(v[k].x), to_units(v[k].y), to_units(v[k].z), to_units(v[k].w));
                dyn_smem[g] = u;
                if (u.x >= LOW) atomicAdd(&bucket_mass[u.x >> LOW_BITS], u.x);
                if (u.y >= LOW) atomicAdd(&bucket_mass[u.y >> LOW_BITS], u.y);
                if (u.z >= LOW) atomicAdd(&bucket_mass[u.z >> LOW_BITS], u.z);
                if (u.w >= LOW) atomicAdd(&bucket_mass[u.w >> LOW_BITS], u.w);
            }
        }
    }
    cluster.sync();  // #1: every block's bucket masses are complete

    // Phase 2a: the row's bucket masses, buckets from the top: thread i holds buckets
    // 1024 - 2i and 1023 - 2i (positions 2i and 2i + 1 counted from the top).
    int a = 0, b = 0;
    {
        const int b0 = LOW - 2 * tid, b1 = LOW - 1 - 2 * tid;
        for (int r = 0; r < C; ++r) {
            const int* h = cluster.map_shared_rank(bucket_mass, r);
            a += h[b0];
            b += h[b1];
        }
    }
    int total, excl = block_scan(a + b, scratch, &total) - (a + b);
    if (total < need) {  // buckets 1 .. 1024 hold less than p: t is in the tail, bucket 0
        if (tid == 0) found[0] = 0, found[1] = total;
    } else if (excl < need && need <= excl + a) {
        found[0] = LOW - 2 * tid, found[1] = excl;
    } else if (excl + a < need && need <= excl + a + b) {
        found[0] = LOW - 1 - 2 * tid, found[1] = excl + a;
    }
    __syncthreads();
    const int bucket = found[0], above_bucket = found[1];

    // Phase 2b: inside the bucket, the count of each low value in this slice (shared memory).
    for (int g = tid; g < groups; g += THREADS) {
        const int4 u = dyn_smem[g];
        const int e[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
        for (int q = 0; q < 4; ++q)
            if (e[q] > 0 && (e[q] >> LOW_BITS) == bucket) atomicAdd(&low_count[e[q] & (LOW - 1)], 1);
    }
    cluster.sync();  // #2: every block's low-value counts are complete (and bucket_mass is read)

    // Phase 3a: the row's counts of the low values, from the top: thread i holds the values
    // bucket * 1024 + 1023 - 2i and bucket * 1024 + 1022 - 2i.
    int ca = 0, cb = 0;
    {
        const int l0 = LOW - 1 - 2 * tid, l1 = LOW - 2 - 2 * tid;
        for (int r = 0; r < C; ++r) {
            const int* h = cluster.map_shared_rank(low_count, r);
            ca += h[l0];
            cb += h[l1];
        }
    }
    const int va = bucket * LOW + LOW - 1 - 2 * tid, vb = va - 1;
    const int ma = ca * va, mb = cb * vb;
    if (tid == 0) found[0] = 1, found[1] = 0, found[2] = 0;  // never kept: the crossing exists
    excl = above_bucket + block_scan(ma + mb, scratch, &total) - (ma + mb);
    if (excl < need && need <= excl + ma) {
        found[0] = va, found[1] = excl, found[2] = ca;
    } else if (excl + ma < need && need <= excl + ma + mb) {
        found[0] = vb, found[1] = excl + ma, found[2] = cb;
    }
    __syncthreads();
    const int t = found[0], above = found[1], at_t = found[2];
    // The nucleus takes the first `take` tokens at t in token order: the fewest with above + take t >= p.
    const int take = min((need - above + t - 1) / t, at_t);
    const double target = (double)uniforms[row] * (double)(above + take * t);  // exact

    // Phase 3b: per thread, a contiguous segment of positions (an odd length, so that the
    // threads of a warp read different banks): its tokens at t and its mass above t.
    const int seg = ((positions + THREADS - 1) / THREADS) | 1;
    const int p_begin = min(tid * seg, positions), p_end = min(p_begin + seg, positions);
    int my_t = 0, my_above = 0;
    for (int p = p_begin; p < p_end; ++p) {
        const int u = units[p];
        my_t += u == t;
        my_above += u > t ? u : 0;
    }
    int blk_t, blk_above;
    const int t_incl = block_scan(my_t, scratch, &blk_t);
    block_scan(my_above, scratch, &blk_above);  // only the block's total is needed
    if (tid == 0) block_totals[0] = blk_t, block_totals[1] = blk_above;
    cluster.sync();  // #3: every block's totals are published
    if (tid == 0) {  // tokens at t and nucleus mass in the slices before this one
        long long t_seen = 0, mass = 0;
        for (int r = 0; r < rank; ++r) {
            const int* bt = cluster.map_shared_rank(block_totals, r);
            const int cnt = bt[0];
            const long long taken = max(0LL, min((long long)take - t_seen, (long long)cnt));
            mass += bt[1] + taken * t;
            t_seen += cnt;
        }
        before[0] = t_seen, before[1] = mass;
    }
    cluster.sync();  // #4: no block reads another's shared memory after this; all may leave
    const long long t_before = before[0] + (t_incl - my_t);  // tokens at t before my segment
    const int my_take = (int)max(0LL, min((long long)take - t_before, (long long)my_t));
    const int my_kept = my_above + my_take * t;  // my segment's nucleus mass
    int blk_kept;
    const long long start = before[1] + (block_scan(my_kept, scratch, &blk_kept) - my_kept);
    // The sample is the first nucleus token whose running mass exceeds target: it lies in the one
    // segment with start <= target < start + my_kept.
    if (my_kept > 0 && (double)start <= target && target < (double)(start + my_kept)) {
        long long running = start, seen = t_before;
        for (int p = p_begin; p < p_end; ++p) {
            const int u = units[p];
            bool member = u > t;
            if (u == t) {
                member = seen < take;
                ++seen;
            }
            if (member) {
                running += u;
                if ((double)running > target) {
                    token_ids[row] = first + (p - shift);
                    break;
                }
            }
        }
    }
}

static int pow2_at_least(int n) {
    int c = 1;
    while (c < n) c *= 2;
    return c;
}

static int pow2_at_most(int n) {
    int c = 1;
    while (c * 2 <= n) c *= 2;
    return c;
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const float* probs, const float* top_p, const float* uniforms, int* token_ids, int batch, int vocab) {
    if (batch <= 0 || vocab <= 0) return;
    static int slots = 0;  // blocks the GPU holds at once (two per SM)
    if (slots == 0) {
        int device = 0, sms = 132;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaFuncSetAttribute(top_p_cluster_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, MAX_DYN_SMEM);
        slots = 2 * sms;
    }
    // Blocks per row: enough for a slice to fit SLICE_CAP tokens, more while the batch leaves SMs
    // idle, but no slice under 2048 tokens; a power of two up to the portable cluster size.
    int c_fit = pow2_at_least((vocab + SLICE_CAP - 1) / SLICE_CAP);
    int c_fill = pow2_at_most(max(1, slots / batch));
    int c_small = pow2_at_most(max(1, vocab / 2048));
    int C = max(c_fit, min(c_fill, c_small));
    if (C > MAX_CLUSTER) C = MAX_CLUSTER;
    const int slice = (((vocab + C - 1) / C) + 3) & ~3;  // a multiple of 4: aligned slices when vocab % 4 == 0
    const size_t smem = (size_t)(slice + 4) * sizeof(int);  // + 4: the shift to 16-byte alignment

    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)(batch * C));
    config.blockDim = dim3(THREADS);
    config.dynamicSmemBytes = smem;
    config.stream = 0;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = (unsigned)C;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    cudaLaunchKernelEx(&config, top_p_cluster_kernel, probs, top_p, uniforms, token_ids, vocab, C, slice);
}
