// Expert CUDA solution for vector_add (obeys the submission contract).
//
// Each thread handles UNROLL float4 vectors of each input: it issues all of its 16-byte loads
// before the first add, so a warp keeps UNROLL * 1 KiB per operand in flight. Loads bypass L1
// (__ldcg) and stores are marked streaming (__stcs): the data is touched once. Elements after
// the last whole float4, and inputs that are not 16-byte aligned, take a scalar path.
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;

__global__ void __launch_bounds__(kThreads) add_vec4(const float4* __restrict__ a, const float4* __restrict__ b,
                                                      float4* __restrict__ c, long long n4) {
    long long base = (long long)blockIdx.x * (kThreads * kUnroll) + threadIdx.x;
    float4 va[kUnroll], vb[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
        long long i = base + (long long)u * kThreads;
        if (i < n4) {
            va[u] = __ldcg(a + i);
            vb[u] = __ldcg(b + i);
        }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
        long long i = base + (long long)u * kThreads;
        if (i < n4) {
            float4 r = make_float4(va[u].x + vb[u].x, va[u].y + vb[u].y, va[u].z + vb[u].z, va[u].w + vb[u].w);
            __stcs(c + i, r);
        }
    }
}

__global__ void add_scalar(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                           long long start, long long n) {
    for (long long i = start + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}

}  // namespace

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    bool aligned = ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
                     reinterpret_cast<uintptr_t>(c)) & 15) == 0;
    long long n4 = aligned ? n / 4 : 0;
    if (n4 > 0) {
        long long per_block = (long long)kThreads * kUnroll;
        unsigned blocks = (unsigned)((n4 + per_block - 1) / per_block);
        add_vec4<<<blocks, kThreads>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
                                       reinterpret_cast<float4*>(c), n4);
    }
    long long rest = (long long)n - n4 * 4;
    if (rest > 0) {
        unsigned blocks = (unsigned)((rest + kThreads - 1) / kThreads);
        if (blocks > 4096) blocks = 4096;
        add_scalar<<<blocks, kThreads>>>(a, b, c, n4 * 4, n);
    }
}
