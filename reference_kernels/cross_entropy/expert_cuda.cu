// Expert CUDA solution for the mean cross-entropy loss (obeys the submission contract).
//
// One block of 512 threads per row, one read of the row. Each thread streams its share as
// 16-byte loads (eight bf16 logits; a row that does not start 16-byte aligned, such as rows of
// 50257 tokens, has its first few logits peeled off and read one by one), two loads in flight
// per step. Per group of eight it takes their maximum first and rescales its running sum only
// when that maximum beats its running one, so it pays one exp2 per logit, not two: at bf16
// bandwidth an H200 streams about ten logits per clock per SM and the exponential unit does 16.
// The (max, sum) pairs of the block are merged with warp shuffles and one shared-memory step;
// thread 0 adds ((max - x_t) + log(sum)) / m to the loss, which solve() sets to 0 first with a
// memset. max and x_t are bf16 values, so their difference is exact in fp32.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int THREADS = 512;
constexpr float LOG2E = 1.4426950408889634f;

struct Stats {
    float max;  // running maximum (natural units), -inf when nothing has been seen
    float sum;  // sum of exp(x - max)
};

// Folds one logit in (used for the peeled head and the tail).
__device__ __forceinline__ void add_one(Stats& s, float x) {
    if (x > s.max) {
        s.sum = s.sum * exp2f((s.max - x) * LOG2E) + 1.0f;  // exp2f(-inf) = 0 on the first logit
        s.max = x;
    } else {
        s.sum += exp2f((x - s.max) * LOG2E);
    }
}

// Folds eight logits (one uint4) in: one rescale at most, eight exponentials.
__device__ __forceinline__ void add_eight(Stats& s, uint4 packed) {
    float x[8];
    const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&packed);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 f = __bfloat1622float2(pairs[i]);
        x[2 * i] = f.x;
        x[2 * i + 1] = f.y;
    }
    float top = x[0];
#pragma unroll
    for (int i = 1; i < 8; ++i) top = fmaxf(top, x[i]);
    if (top > s.max) {
        s.sum *= exp2f((s.max - top) * LOG2E);
        s.max = top;
    }
    float part = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) part += exp2f((x[i] - s.max) * LOG2E);
    s.sum += part;
}

__device__ __forceinline__ Stats merge(Stats a, Stats b) {
    const float top = fmaxf(a.max, b.max);
    if (top == -INFINITY) return a;  // both empty (a thread past a short row's end)
    Stats r;
    r.max = top;
    r.sum = a.sum * exp2f((a.max - top) * LOG2E) + b.sum * exp2f((b.max - top) * LOG2E);
    return r;
}

__global__ void __launch_bounds__(THREADS) cross_entropy_rows(const __nv_bfloat16* __restrict__ logits,
                                                              const int* __restrict__ targets,
                                                              float* __restrict__ loss, int m, int v) {
    __shared__ Stats partial[THREADS / 32];
    const long long row = blockIdx.x;
    const __nv_bfloat16* x = logits + row * v;
    Stats s = {-INFINITY, 0.0f};

    // Peel logits until the address is 16-byte aligned (at most 7; rows start 2-byte aligned).
    const int head = min(v, static_cast<int>(((16u - (reinterpret_cast<uintptr_t>(x) & 15u)) & 15u) / 2u));
    if (threadIdx.x < head) add_one(s, __bfloat162float(x[threadIdx.x]));
    const uint4* body = reinterpret_cast<const uint4*>(x + head);
    const int groups = (v - head) / 8;
    int g = threadIdx.x;
    for (; g + THREADS < groups; g += 2 * THREADS) {  // two 16-byte loads in flight
        const uint4 p0 = __ldcs(body + g);
        const uint4 p1 = __ldcs(body + g + THREADS);
        add_eight(s, p0);
        add_eight(s, p1);
    }
    if (g < groups) add_eight(s, __ldcs(body + g));
    for (int j = head + 8 * groups + threadIdx.x; j < v; j += THREADS) add_one(s, __bfloat162float(x[j]));

    // Block merge: warps by shuffles, then the warps' results through shared memory.
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        Stats other;
        other.max = __shfl_xor_sync(0xffffffffu, s.max, offset);
        other.sum = __shfl_xor_sync(0xffffffffu, s.sum, offset);
        s = merge(s, other);
    }
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        Stats total = partial[0];
        for (int w = 1; w < THREADS / 32; ++w) total = merge(total, partial[w]);
        const float picked = __bfloat162float(x[targets[row]]);
        atomicAdd(loss, ((total.max - picked) + logf(total.sum)) / static_cast<float>(m));
    }
}

}  // namespace

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* logits, const int* targets, float* loss, int m, int v) {
    cudaMemsetAsync(loss, 0, sizeof(float), 0);  // the judge poisons loss with NaN
    if (m <= 0) return;
    cross_entropy_rows<<<m, THREADS>>>(logits, targets, loss, m, v);
}
