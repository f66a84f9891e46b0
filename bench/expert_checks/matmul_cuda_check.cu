// Standalone check of reference_kernels/matmul/expert_cuda.cu on an H100/H200 (sm_90a).
//
// Build and run from the repository root:
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/matmul_cuda_check bench/expert_checks/matmul_cuda_check.cu && /tmp/matmul_cuda_check
//
// For every shape: random bf16 a, b in [-1, 1); c poisoned with NaN; solve(); compared with a
// naive fp32 GPU reference, element by element, |c - ref| / (|ref| + 1) <= 2e-2 (bf16 rounding of
// the output alone is <= 2^-8 relative). The fast-path shapes are checked with both wgmma kernel
// variants (with and without setmaxnreg). Then the four benchmark shapes are timed with CUDA
// events (an L2 flush before each call, median of 20 calls), both variants, in TFLOP/s; the
// H200's torch.matmul reference (docs/expert_kernels_h200.md) is ~770 TFLOP/s at 4096^3 and
// 8192^3, ~600 at 8192x4096x2048, ~750 at 2048x8192x4096 (70% of those is the goal).
// A watchdog turns a hung kernel (e.g. an mbarrier deadlock) into "TIMEOUT" and exit code 2.
// Exit code: 0 all correct, 1 a wrong answer or a CUDA error, 2 a timeout.
#include "../../reference_kernels/matmul/expert_cuda.cu"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK_CUDA(x)                                                                                  \
    do {                                                                                               \
        cudaError_t err_ = (x);                                                                        \
        if (err_ != cudaSuccess) {                                                                     \
            std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__, __LINE__,    \
                        cudaGetErrorString(err_));                                                     \
            std::fflush(stdout);                                                                       \
            _exit(1);                                                                                  \
        }                                                                                              \
    } while (0)

__global__ void fill_random(__nv_bfloat16* p, size_t count, uint32_t seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t x = (uint32_t)i * 0x9E3779B1u ^ (uint32_t)(i >> 32) * 0x85EBCA77u ^ seed;
        x ^= x >> 16;
        x *= 0x7FEB352Du;
        x ^= x >> 15;
        x *= 0x846CA68Bu;
        x ^= x >> 16;
        p[i] = __float2bfloat16((x >> 8) * (2.0f / 16777216.0f) - 1.0f);
    }
}

__global__ void fill_nan(__nv_bfloat16* p, size_t count) {
    __nv_bfloat16_raw nan_raw;
    nan_raw.x = 0x7FFF;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        p[i] = __nv_bfloat16(nan_raw);
}

// Naive reference: 16x16 tiles through shared memory, one fp32 output per thread.
__global__ void ref_gemm(const __nv_bfloat16* a, const __nv_bfloat16* b, float* ref, int m, int n, int k) {
    __shared__ float ta[16][17], tb[16][17];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += 16) {
        ta[ty][tx] = (row < m && k0 + tx < k) ? __bfloat162float(a[(size_t)row * k + k0 + tx]) : 0.0f;
        tb[ty][tx] = (k0 + ty < k && col < n) ? __bfloat162float(b[(size_t)(k0 + ty) * n + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 16; ++kk) acc = fmaf(ta[ty][kk], tb[kk][tx], acc);
        __syncthreads();
    }
    if (row < m && col < n) ref[(size_t)row * n + col] = acc;
}

struct CompareResult {
    unsigned long long bad;
    unsigned long long first_bad;  // linear index, ~0ull if none
    unsigned int max_err_bits;     // float bits of the largest relative error (non-negative)
};

__global__ void compare(const __nv_bfloat16* c, const float* ref, size_t count, float tol, CompareResult* out) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        float got = __bfloat162float(c[i]);
        float want = ref[i];
        float err = fabsf(got - want) / (fabsf(want) + 1.0f);
        if (!(err <= tol)) {  // also catches NaN
            atomicAdd(&out->bad, 1ull);
            atomicMin(&out->first_bad, (unsigned long long)i);
            err = isnan(err) ? 3.0e38f : err;
        }
        atomicMax(&out->max_err_bits, __float_as_uint(err));
    }
}

static void wait_or_die(cudaStream_t stream, double seconds, const char* what) {
    cudaEvent_t ev;
    CHECK_CUDA(cudaEventCreate(&ev));
    CHECK_CUDA(cudaEventRecord(ev, stream));
    auto start = std::chrono::steady_clock::now();
    while (true) {
        cudaError_t q = cudaEventQuery(ev);
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) CHECK_CUDA(q);
        double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (waited > seconds) {
            std::printf("TIMEOUT: %s did not finish in %.0f s (deadlock in the pipeline?)\n", what, seconds);
            std::fflush(stdout);
            _exit(2);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK_CUDA(cudaEventDestroy(ev));
}

static const char* path_name(int p) {
    switch (p) {
        case 1: return "wgmma";
        case 2: return "wmma";
        case 3: return "simple";
        default: return "none";
    }
}

struct Shape {
    int m, n, k;
};

// Returns true when correct.
static bool check_shape(Shape s, int variant) {
    const size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
    __nv_bfloat16 *a, *b, *c;
    float* ref;
    CompareResult* res;
    CHECK_CUDA(cudaMalloc(&a, na * 2));
    CHECK_CUDA(cudaMalloc(&b, nb * 2));
    CHECK_CUDA(cudaMalloc(&c, nc * 2));
    CHECK_CUDA(cudaMalloc(&ref, nc * 4));
    CHECK_CUDA(cudaMalloc(&res, sizeof(CompareResult)));
    fill_random<<<1024, 256>>>(a, na, 0x1234u + s.m);
    fill_random<<<1024, 256>>>(b, nb, 0xBEEFu + s.n);
    fill_nan<<<1024, 256>>>(c, nc);
    ref_gemm<<<dim3((s.n + 15) / 16, (s.m + 15) / 16), dim3(16, 16)>>>(a, b, ref, s.m, s.n, s.k);
    CHECK_CUDA(cudaGetLastError());
    wait_or_die(0, 600, "reference");

    g_wgmma_variant = variant;
    solve(a, b, c, s.m, s.n, s.k);
    const int path = g_last_path;
    g_wgmma_variant = -1;
    CHECK_CUDA(cudaGetLastError());
    wait_or_die(0, 30, "solve()");
    CHECK_CUDA(cudaDeviceSynchronize());

    CompareResult init = {0ull, ~0ull, 0u};
    CHECK_CUDA(cudaMemcpy(res, &init, sizeof(init), cudaMemcpyHostToDevice));
    compare<<<1024, 256>>>(c, ref, nc, 2e-2f, res);
    CompareResult r;
    CHECK_CUDA(cudaMemcpy(&r, res, sizeof(r), cudaMemcpyDeviceToHost));
    float max_err;
    std::memcpy(&max_err, &r.max_err_bits, 4);
    const char* vname = path == 1 ? (variant == 1 ? " (setmaxnreg)" : variant == 0 ? " (no setmaxnreg)" : " (auto)") : "";
    std::printf("%-6s %5d x %5d x %5d  path %-6s%-17s max rel err %.3e  bad %llu / %zu\n",
                r.bad == 0 ? "ok" : "WRONG", s.m, s.n, s.k, path_name(path), vname, max_err, r.bad, nc);
    if (r.bad != 0) {
        size_t i = r.first_bad;
        __nv_bfloat16 got;
        float want;
        CHECK_CUDA(cudaMemcpy(&got, c + i, 2, cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(&want, ref + i, 4, cudaMemcpyDeviceToHost));
        std::printf("       first bad element c[%zu][%zu] = %g, reference %g\n", i / s.n, i % s.n,
                    __bfloat162float(got), want);
    }
    std::fflush(stdout);
    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(b));
    CHECK_CUDA(cudaFree(c));
    CHECK_CUDA(cudaFree(ref));
    CHECK_CUDA(cudaFree(res));
    return r.bad == 0;
}

static void time_shape(Shape s, void* flush, size_t flush_bytes, int variant) {
    const size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
    __nv_bfloat16 *a, *b, *c;
    CHECK_CUDA(cudaMalloc(&a, na * 2));
    CHECK_CUDA(cudaMalloc(&b, nb * 2));
    CHECK_CUDA(cudaMalloc(&c, nc * 2));
    fill_random<<<1024, 256>>>(a, na, 7u);
    fill_random<<<1024, 256>>>(b, nb, 11u);
    g_wgmma_variant = variant;
    for (int i = 0; i < 3; ++i) solve(a, b, c, s.m, s.n, s.k);  // warm-up (and tensor-map cache)
    const int path = g_last_path;
    CHECK_CUDA(cudaGetLastError());
    wait_or_die(0, 60, "warm-up solve()");
    const int reps = 20;
    std::vector<cudaEvent_t> ev(2 * reps);
    for (auto& e : ev) CHECK_CUDA(cudaEventCreate(&e));
    for (int i = 0; i < reps; ++i) {
        CHECK_CUDA(cudaMemsetAsync(flush, i, flush_bytes));  // evict a, b, c from L2
        CHECK_CUDA(cudaEventRecord(ev[2 * i]));
        solve(a, b, c, s.m, s.n, s.k);
        CHECK_CUDA(cudaEventRecord(ev[2 * i + 1]));
    }
    CHECK_CUDA(cudaGetLastError());
    wait_or_die(0, 120, "timed solve() calls");
    std::vector<float> ms(reps);
    for (int i = 0; i < reps; ++i) CHECK_CUDA(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
    g_wgmma_variant = -1;
    std::sort(ms.begin(), ms.end());
    const double med = ms[reps / 2], best = ms[0];
    const double flop = 2.0 * s.m * s.n * (double)s.k;
    std::printf("time   %5d x %5d x %5d  path %-6s%-16s median %8.1f us  %6.1f TFLOP/s  (best %6.1f)\n", s.m, s.n, s.k,
                path_name(path), variant == 1 ? " (setmaxnreg)" : " (no setmaxnreg)", med * 1e3,
                flop / (med * 1e-3) / 1e12, flop / (best * 1e-3) / 1e12);
    std::fflush(stdout);
    for (auto& e : ev) CHECK_CUDA(cudaEventDestroy(e));
    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(b));
    CHECK_CUDA(cudaFree(c));
}

int main() {
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    const WgmmaLaunchState& st = wgmma_state();
    cudaFuncAttributes fa0, fa1;
    CHECK_CUDA(cudaFuncGetAttributes(&fa0, gemm_wgmma<false>));
    CHECK_CUDA(cudaFuncGetAttributes(&fa1, gemm_wgmma<true>));
    std::printf("wgmma path usable: %s; registers %d (no setmaxnreg) / %d (setmaxnreg); automatic choice: %s\n",
                st.usable ? "yes" : "NO", fa0.numRegs, fa1.numRegs, st.use_setmaxnreg ? "setmaxnreg" : "no setmaxnreg");
    std::fflush(stdout);

    bool ok = true;
    // Fast-path shapes first (the ones that can hang), smallest first.
    const Shape fast[] = {
        {128, 256, 64},      // exactly one tile
        {256, 512, 128},     // a few whole tiles, two k-slices
        {520, 264, 200},     // m, n, k edges; n = 264: second column tile has 3 b boxes wholly past n
        {1000, 1000, 1000},  // the judge's "thousand" case
        {129, 4104, 8200},   // long k, many column tiles, one spare row tile
        {4096, 4096, 4096}, {8192, 4096, 2048}, {2048, 8192, 4096}, {8192, 8192, 8192},
    };
    for (const Shape& s : fast) {
        for (int variant = 0; variant <= 1; ++variant) ok &= check_shape(s, variant);
    }
    // The judge's other test cases (fallback kernels) plus the requested odd shapes.
    const Shape other[] = {
        {1, 1, 1}, {2, 2, 2}, {3, 5, 7}, {1, 64, 48}, {64, 1, 40}, {17, 31, 13}, {64, 64, 64}, {65, 63, 67},
        {16, 24, 1000}, {127, 257, 129}, {127, 4099, 1001}, {4096, 4096, 16}, {2053, 1031, 4099},
    };
    for (const Shape& s : other) ok &= check_shape(s, -1);

    size_t flush_bytes = (size_t)2 * prop.l2CacheSize;
    void* flush;
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    const Shape bench[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 4096, 2048}, {2048, 8192, 4096}};
    for (const Shape& s : bench)
        for (int variant = 1; variant >= 0; --variant) time_shape(s, flush, flush_bytes, variant);
    CHECK_CUDA(cudaFree(flush));

    std::printf(ok ? "ALL CORRECT\n" : "SOME SHAPES WRONG\n");
    return ok ? 0 : 1;
}
