// Expert CUDA kernel for top-p sampling: a block of 1024 threads per row, three passes over it,
// all in integers.
//
// Every probability is a multiple of 2^-20, so x * 2^20 is an exact integer ("units", at most
// 2^20) and the threshold t is found by a two-level radix select instead of a search:
//   pass 1  the mass of each bucket of the high bits (units >> 10) in shared memory; a suffix scan
//           over the buckets finds the one where the mass from the top crosses p;
//   pass 2  inside that bucket, the count of each value of the low 10 bits (mass = count x value,
//           as the key is the value); a second suffix scan finds t, the mass above it and the
//           number of tokens at t, hence the nucleus's mass S;
//   pass 3  the sample: a block-wide prefix sum in token order, 4 tokens a thread from one
//           16-byte load, a carry between tiles, and the block leaves at the tile that holds it.
// Tokens of the far tail all fall into bucket 0: their mass is kept per thread and added once a
// warp, and pass 2 adds equal keys once a warp (__match_any_sync), so shared-memory atomics on
// the few hot addresses do not serialize.
#include <cuda_runtime.h>

#define THREADS 1024
#define WARPS (THREADS / 32)
#define LOW_BITS 10
#define LOW (1 << LOW_BITS)  // values per bucket, and buckets of the high bits below 2^20
#define UNITS_F 1048576.0f

template <typename T>
__device__ T block_scan(T v, T* scratch, T* total) {  // inclusive, thread order; *total: the block's sum
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = 1; d < 32; d *= 2) {
        T n = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += n;
    }
    __syncthreads();  // the previous call's readers are done with scratch
    if (lane == 31) scratch[warp] = v;
    __syncthreads();
    T offset = 0, sum = 0;
    for (int w = 0; w < WARPS; ++w) {
        if (w < warp) offset += scratch[w];
        sum += scratch[w];
    }
    *total = sum;
    return v + offset;
}

__device__ int block_min(int v, int* scratch) {
    for (int d = 16; d > 0; d /= 2) v = min(v, __shfl_xor_sync(0xffffffffu, v, d));
    __syncthreads();
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    int m = scratch[0];
    for (int w = 1; w < WARPS; ++w) m = min(m, scratch[w]);
    return m;
}

// Chunk j of the row in units: tokens 4j .. 4j + 3 from one 16-byte load when vocab % 4 == 0
// (rows are then 16-byte aligned), else token j alone; -1 past the end.
__device__ __forceinline__ void load_chunk(const float* row, int vocab, bool vec, int j, int u[4]) {
    u[0] = u[1] = u[2] = u[3] = -1;
    if (vec) {
        if (4 * j < vocab) {
            float4 v = reinterpret_cast<const float4*>(row)[j];
            u[0] = __float2int_rn(v.x * UNITS_F);
            u[1] = __float2int_rn(v.y * UNITS_F);
            u[2] = __float2int_rn(v.z * UNITS_F);
            u[3] = __float2int_rn(v.w * UNITS_F);
        }
    } else if (j < vocab) {
        u[0] = __float2int_rn(row[j] * UNITS_F);
    }
}

__global__ void __launch_bounds__(THREADS) top_p_kernel(const float* probs, const float* top_p, const float* uniforms,
                                                        int* token_ids, int vocab) {
    __shared__ int bucket_mass[LOW + 1];  // high-bit buckets 0 .. 1024 (1024: a probability of 1)
    __shared__ int low_count[LOW];
    __shared__ int scratch[WARPS];
    __shared__ int found[4];  // bucket, mass above it; then t, mass above t, count at t
    const float* row = probs + (long long)blockIdx.x * vocab;
    const bool vec = (vocab & 3) == 0;
    const int chunks = vec ? vocab / 4 : vocab, per = vec ? 4 : 1;
    const int lane = threadIdx.x % 32;
    const int need = (int)ceilf(top_p[blockIdx.x] * UNITS_F);  // nucleus mass >= p <=> units >= need
    for (int i = threadIdx.x; i <= LOW; i += THREADS) bucket_mass[i] = 0;
    for (int i = threadIdx.x; i < LOW; i += THREADS) low_count[i] = 0;
    __syncthreads();

    // Pass 1: mass per bucket of the high bits; bucket 0 (the tail) in a register.
    int tail = 0;
    for (int j = threadIdx.x; j < chunks; j += THREADS) {
        int u[4];
        load_chunk(row, vocab, vec, j, u);
        for (int e = 0; e < per; ++e) {
            if (u[e] >= LOW) atomicAdd(&bucket_mass[u[e] >> LOW_BITS], u[e]);
            else if (u[e] > 0) tail += u[e];
        }
    }
    for (int d = 16; d > 0; d /= 2) tail += __shfl_xor_sync(0xffffffffu, tail, d);
    if (lane == 0) atomicAdd(&bucket_mass[0], tail);
    __syncthreads();
    // Thread i looks at bucket LOW - i: the mass from the top down to it is a scan in thread order.
    int total, mass = bucket_mass[LOW - threadIdx.x];
    int from_top = block_scan(mass, scratch, &total);
    int first = block_min(from_top >= need ? (int)threadIdx.x : THREADS, scratch);
    if (first == (int)threadIdx.x) found[0] = LOW - first, found[1] = from_top - mass;
    if (first == THREADS && threadIdx.x == 0) found[0] = 0, found[1] = total;  // buckets 1.. hold less than p
    __syncthreads();
    const int bucket = found[0], above_bucket = found[1];

    // Pass 2: inside the bucket, the count of each low value (equal keys added once a warp).
    for (int base = 0; base < chunks; base += THREADS) {
        int u[4];
        load_chunk(row, vocab, vec, base + threadIdx.x, u);
        for (int e = 0; e < per; ++e) {
            int key = u[e] > 0 && (u[e] >> LOW_BITS) == bucket ? u[e] & (LOW - 1) : -1;
            unsigned peers = __match_any_sync(0xffffffffu, key);
            if (key >= 0 && lane == __ffs(peers) - 1) atomicAdd(&low_count[key], __popc(peers));
        }
    }
    __syncthreads();
    int value = bucket * LOW + (LOW - 1 - threadIdx.x);
    int count = low_count[LOW - 1 - threadIdx.x];
    mass = count * value;
    from_top = above_bucket + block_scan(mass, scratch, &total);
    first = block_min(from_top >= need ? (int)threadIdx.x : THREADS, scratch);
    if (first == (int)threadIdx.x) found[0] = value, found[1] = from_top - mass, found[2] = count;
    __syncthreads();
    const int t = found[0], above = found[1], at_t = found[2];
    // The nucleus takes the first `take` tokens at t in token order: the fewest with above + take t >= p.
    const int take = min((need - above + t - 1) / t, at_t);
    const double target = (double)uniforms[blockIdx.x] * (double)(above + take * t);  // exact

    // Pass 3: the sample, a prefix sum of the nucleus's units in token order.
    int carry = 0, seen_t = 0;
    for (int base = 0; base < chunks; base += THREADS) {
        int u[4], is_t[4], kept[4];
        load_chunk(row, vocab, vec, base + threadIdx.x, u);
        int my_t = 0;
        for (int e = 0; e < 4; ++e) my_t += is_t[e] = u[e] == t;
        int tile_t, t_before = seen_t + block_scan(my_t, scratch, &tile_t) - my_t;
        int my_kept = 0;
        for (int e = 0; e < 4; ++e) {
            bool member = u[e] > t || (is_t[e] && t_before < take);
            t_before += is_t[e];
            my_kept += kept[e] = member ? u[e] : 0;
        }
        int tile_kept, running = carry + block_scan(my_kept, scratch, &tile_kept) - my_kept;
        int hit = vocab;
        for (int e = 0; e < 4; ++e) {
            running += kept[e];
            if (kept[e] > 0 && (double)running > target && hit == vocab) hit = vec ? 4 * (base + threadIdx.x) + e : base + threadIdx.x;
        }
        hit = block_min(hit, scratch);
        if (hit < vocab) {  // the same in every thread: the block leaves together
            if (threadIdx.x == 0) token_ids[blockIdx.x] = hit;
            return;
        }
        carry += tile_kept;
        seen_t += tile_t;
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const float* probs, const float* top_p, const float* uniforms, int* token_ids, int batch, int vocab) {
    top_p_kernel<<<batch, THREADS>>>(probs, top_p, uniforms, token_ids, vocab);
}
