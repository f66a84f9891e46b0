// A block of 512 threads per row: a 16-way search for the threshold (five passes, 16 masses per
// thread in registers, reduced over the block), the mass above it and the count at it in one more
// pass, S from integers, and a sampling pass that leaves at the tile holding the sample.
#include <cuda_runtime.h>

#define THREADS 512
#define WARPS (THREADS / 32)
#define WAYS 16
#define UNITS 1048576
#define UNIT (1.0f / 1048576.0f)

template <typename T>
__device__ T block_scan(T v, T* scratch, T* total) {  // inclusive, thread order; *total: the block's sum
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = 1; d < 32; d *= 2) {
        T n = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += n;
    }
    __syncthreads();
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

__global__ void __launch_bounds__(THREADS) top_p_kernel(const float* probs, const float* top_p, const float* uniforms,
                                                        int* token_ids, int vocab) {
    __shared__ float partial[WAYS][WARPS];
    __shared__ float fscratch[WARPS];
    __shared__ int iscratch[WARPS];
    const float* row = probs + (long long)blockIdx.x * vocab;
    const float p = top_p[blockIdx.x];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // The threshold: the largest k (units) whose mass, the sum of probabilities >= k, is >= p.
    int lo = 1, hi = UNITS;
    while (lo < hi) {  // uniform: every thread holds the same lo and hi
        int width = (hi - lo + WAYS - 1) / WAYS;
        float mass[WAYS];
        for (int c = 0; c < WAYS; ++c) mass[c] = 0.0f;
        for (int i = threadIdx.x; i < vocab; i += THREADS) {
            float x = row[i];
            for (int c = 0; c < WAYS; ++c)
                if (x >= (float)(lo + (c + 1) * width) * UNIT) mass[c] += x;
        }
        for (int c = 0; c < WAYS; ++c) {
            float m = mass[c];
            for (int d = 16; d > 0; d /= 2) m += __shfl_xor_sync(0xffffffffu, m, d);
            if (lane == 0) partial[c][warp] = m;
        }
        __syncthreads();
        int passed = 0;
        for (int c = 0; c < WAYS; ++c) {
            float m = 0.0f;
            for (int w = 0; w < WARPS; ++w) m += partial[c][w];
            passed += m >= p && lo + (c + 1) * width <= hi;  // the passing candidates are a prefix
        }
        __syncthreads();  // partial is rewritten by the next round
        hi = min(hi, lo + (passed + 1) * width - 1);
        lo += passed * width;
    }
    const float t = lo * UNIT;
    float above = 0.0f;
    int at_t = 0;
    for (int i = threadIdx.x; i < vocab; i += THREADS) {
        float x = row[i];
        if (x > t) above += x;
        at_t += x == t;
    }
    block_scan(above, fscratch, &above);
    block_scan(at_t, iscratch, &at_t);
    // The nucleus takes the first `take` tokens at t in token order: the fewest with above + take t >= p.
    const int need = (int)ceilf(p * (float)UNITS), above_units = __float2int_rn(above * (float)UNITS);
    const int take = min((need - above_units + lo - 1) / lo, at_t);
    const float target = uniforms[blockIdx.x] * (above + take * t);
    float carry = 0.0f;
    int seen_t = 0;
    for (int base = 0; base < vocab; base += THREADS) {
        int i = base + threadIdx.x;
        float x = i < vocab ? row[i] : 0.0f;
        int is_t = x == t, tile_t;
        int before = seen_t + block_scan(is_t, iscratch, &tile_t) - is_t;
        bool member = x > t || (is_t && before < take);
        float tile_mass, running = carry + block_scan(member ? x : 0.0f, fscratch, &tile_mass);
        int hit = block_min(member && running > target ? i : vocab, iscratch);
        if (hit < vocab) {  // the same in every thread: the block leaves together
            if (threadIdx.x == 0) token_ids[blockIdx.x] = hit;
            return;
        }
        carry += tile_mass;
        seen_t += tile_t;
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const float* probs, const float* top_p, const float* uniforms, int* token_ids, int batch, int vocab) {
    top_p_kernel<<<batch, THREADS>>>(probs, top_p, uniforms, token_ids, vocab);
}
