#include <cuda_runtime.h>

// One block of THREADS threads per row. Every probability is a multiple of 2^-20, so every sum
// below is exact in fp32 whatever the order the block adds in.
#define THREADS 256
#define WARPS (THREADS / 32)
#define UNIT (1.0f / 1048576.0f)

// Inclusive prefix sum over the block in thread order; *total gets the block's sum (every thread).
template <typename T>
__device__ T block_scan(T v, T* scratch, T* total) {
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

// The row's mass of probabilities >= v (every thread gets it).
__device__ float mass_at_least(const float* row, int vocab, float v, float* scratch) {
    float s = 0.0f, total;
    for (int i = threadIdx.x; i < vocab; i += THREADS) {
        float x = row[i];
        if (x >= v) s += x;
    }
    block_scan(s, scratch, &total);
    return total;
}

__global__ void top_p_kernel(const float* probs, const float* top_p, const float* uniforms, int* token_ids, int vocab) {
    __shared__ float fscratch[WARPS];
    __shared__ int iscratch[WARPS];
    const float* row = probs + (long long)blockIdx.x * vocab;
    float p = top_p[blockIdx.x], u = uniforms[blockIdx.x];
    // The threshold t: the largest k * 2^-20 whose mass is still >= p (the loop is uniform: every
    // thread holds the same lo and hi).
    int lo = 1, hi = 1 << 20;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (mass_at_least(row, vocab, mid * UNIT, fscratch) >= p) lo = mid;
        else hi = mid - 1;
    }
    float t = lo * UNIT;
    float above = mass_at_least(row, vocab, t + UNIT, fscratch);
    // The nucleus's mass: tokens above t, and tokens at t in index order while the mass before is < p.
    float mass = 0.0f;
    int at_t = 0;
    for (int base = 0; base < vocab; base += THREADS) {
        int i = base + threadIdx.x;
        float x = i < vocab ? row[i] : 0.0f;
        int is_t = x == t, count;
        int before = at_t + block_scan(is_t, iscratch, &count) - is_t;
        bool member = x > t || (is_t && above + t * (float)before < p);
        float tile_mass;
        block_scan(member ? x : 0.0f, fscratch, &tile_mass);
        mass += tile_mass;
        at_t += count;
    }
    // The sample: in token order, the first nucleus token whose running mass is > u * S.
    float target = u * mass, carry = 0.0f;
    at_t = 0;
    for (int base = 0; base < vocab; base += THREADS) {
        int i = base + threadIdx.x;
        float x = i < vocab ? row[i] : 0.0f;
        int is_t = x == t, count;
        int before = at_t + block_scan(is_t, iscratch, &count) - is_t;
        bool member = x > t || (is_t && above + t * (float)before < p);
        float tile_mass;
        float running = carry + block_scan(member ? x : 0.0f, fscratch, &tile_mass);
        int first = block_min(member && running > target ? i : vocab, iscratch);
        if (first < vocab) {  // the same value in every thread: the block leaves together
            if (threadIdx.x == 0) token_ids[blockIdx.x] = first;
            return;
        }
        carry += tile_mass;
        at_t += count;
    }
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const float* probs, const float* top_p, const float* uniforms, int* token_ids, int batch, int vocab) {
    top_p_kernel<<<batch, THREADS>>>(probs, top_p, uniforms, token_ids, vocab);
}
