// Rung 3: each thread moves 16 bytes per load (float4) and walks the vector with a grid-stride
// loop over a grid sized to the GPU (8 blocks of 256 threads per SM), so the same resident
// threads stream the whole vector. Four times fewer load and store instructions than one float
// per thread. Elements after the last whole float4, and inputs that are not 16-byte aligned,
// take the scalar loop.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int THREADS = 256;
constexpr int BLOCKS_PER_SM = 8;

__global__ void add_vec4_strided(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 long long n, long long n4) {
    const long long stride = (long long)gridDim.x * THREADS;
    const long long first = (long long)blockIdx.x * THREADS + threadIdx.x;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (long long i = first; i < n4; i += stride) {
        const float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (long long i = n4 * 4 + first; i < n; i += stride) c[i] = a[i] + b[i];
}

static int sm_count() {
    static int count = 0;
    if (count == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
        if (count <= 0) count = 132;
    }
    return count;
}

extern "C" void solve(const float* a, const float* b, float* c, int n) {
    if (n <= 0) return;
    const bool aligned =
        ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) | reinterpret_cast<uintptr_t>(c)) & 15) == 0;
    const long long n4 = aligned ? n / 4 : 0;
    const long long work = n4 > 0 ? n4 : n;  // the loop with the most iterations sizes the grid
    long long blocks = (work + THREADS - 1) / THREADS;
    const long long cap = (long long)sm_count() * BLOCKS_PER_SM;
    if (blocks > cap) blocks = cap;
    add_vec4_strided<<<(unsigned)blocks, THREADS>>>(a, b, c, (long long)n, n4);
}
