// Standalone check + timing of reference_kernels/paged_attention/expert_cuda.cu on one GPU.
//
// Build and run (from the repository root), one command:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o /tmp/pa_check bench/expert_checks/paged_attention_cuda_check.cu -ldl && /tmp/pa_check
// Optionally also check and time another solve() of the same contract built as a shared library, e.g. v1:
//   nvcc -shared -Xcompiler -fPIC -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/pa_v1.so OLD_KERNEL.cu && /tmp/pa_check /tmp/pa_v1.so
// Exit status 0 when every check passes; the last line reads 'N passed, M failed'.
// Tuning knobs of the kernel pass through: add e.g. -DPA_V2_PARTITION=1024 or -DPA_V2_L2_HINT=256.
//
// What it does, per case: random bf16 q / k_cache / v_cache (normal, scale and offset per tensor as
// reference.py draws them), a block table that is a random permutation of the page pool, lengths in
// pairs adding up to max_len + 1 (first pair 1 and max_len) in random order, as reference.py makes
// them (or explicit lengths); every cache row a sequence must not read (slots past its length, pages
// of its table past its last page, the 7 unused pages) is set to NaN, and `out` starts as NaN. It
// runs solve() and compares with a naive fp32 GPU reference (one warp per (sequence, head)) using
// the judge's rule: |o - ref| <= 0.016 |ref| + 0.01 rms(ref) per element and
// ||o - ref|| <= 0.016 ||ref||. Benchmark shapes are then timed: median of 30 calls, each after
// an L2 flush (a 512 MiB memset), cudaEvents around solve() alone (partition merge included).
// GB/s counts q + out + K/V rows of every live token (2 bytes each): 4*S*H*D + 4*KVH*D*sum(len).
// The percentage is against the device-to-device copy bandwidth measured here (read + write).
#include "../../reference_kernels/paged_attention/expert_cuda.cu"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t err_ = (call);                                                                \
        if (err_ != cudaSuccess) {                                                                \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__, __LINE__, \
                    cudaGetErrorString(err_));                                                    \
            exit(2);                                                                              \
        }                                                                                         \
    } while (0)

typedef void (*SolveFn)(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, const int*, const int*,
                        __nv_bfloat16*, int, int, int, int, int, int);

struct Case {
    const char* name;
    int num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks;
    bool bench;
    std::vector<int> lens;  // empty: reference.py's pairs
};

// ---------------------------------------------------------------------------------------------
// Device helpers: random fill, poisoning, reference.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ uint64_t splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__global__ void fill_normal(__nv_bfloat16* dst, size_t n, uint64_t seed, float scale, float offset) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = splitmix(seed * 0x100000001B3ull ^ i);
        float u1 = ((h >> 40) + 1.0f) * (1.0f / 16777217.0f);  // (0, 1]
        float u2 = ((h & 0xFFFFFFull)) * (1.0f / 16777216.0f);
        float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
        dst[i] = __float2bfloat16_rn((z + offset) * scale);
    }
}

// NaN into every row a sequence must not read: slots >= len of each table entry of the sequence.
__global__ void poison_stale(__nv_bfloat16* k, __nv_bfloat16* v, const int* table, const int* lens,
                             int max_blocks, int block_size, int row_elems) {
    const int seq = blockIdx.x / max_blocks, b = blockIdx.x % max_blocks;
    const long long page = table[(long long)seq * max_blocks + b];
    const int len = lens[seq];
    const __nv_bfloat16 nan = __ushort_as_bfloat16((unsigned short)0x7FC0);
    for (int slot = 0; slot < block_size; ++slot) {
        if (b * block_size + slot < len) continue;
        size_t base = ((size_t)page * block_size + slot) * row_elems;
        for (int e = threadIdx.x; e < row_elems; e += blockDim.x) {
            k[base + e] = nan;
            v[base + e] = nan;
        }
    }
}

__global__ void poison_pages(__nv_bfloat16* k, __nv_bfloat16* v, const int* pages, int count, size_t page_elems) {
    const __nv_bfloat16 nan = __ushort_as_bfloat16((unsigned short)0x7FC0);
    for (int p = 0; p < count; ++p)
        for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < page_elems;
             e += (size_t)gridDim.x * blockDim.x) {
            k[(size_t)pages[p] * page_elems + e] = nan;
            v[(size_t)pages[p] * page_elems + e] = nan;
        }
}

__global__ void fill_u16(unsigned short* dst, size_t n, unsigned short value) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = value;
}

// One warp per (sequence, head), fp32 throughout, scores kept in a global scratch row.
__global__ void reference_attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                    const int* table, const int* lens, float* out, float* scores, int num_seqs,
                                    int num_heads, int num_kv_heads, int head_dim, int block_size, int max_blocks) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warp >= num_seqs * num_heads) return;
    const int seq = warp / num_heads, head = warp % num_heads;
    const int kvh = head / (num_heads / num_kv_heads);
    const int len = lens[seq];
    const int max_len = max_blocks * block_size;
    float* sc = scores + (size_t)warp * max_len;
    const __nv_bfloat16* qr = q + ((size_t)seq * num_heads + head) * head_dim;
    const float scale = 1.0f / sqrtf((float)head_dim);
    float mx = -INFINITY;
    for (int t = lane; t < len; t += 32) {
        const long long page = table[(long long)seq * max_blocks + t / block_size];
        const __nv_bfloat16* kr = k + (((size_t)page * block_size + t % block_size) * num_kv_heads + kvh) * head_dim;
        float dot = 0.0f;
        for (int d = 0; d < head_dim; ++d) dot = fmaf(__bfloat162float(qr[d]), __bfloat162float(kr[d]), dot);
        dot *= scale;
        sc[t] = dot;
        mx = fmaxf(mx, dot);
    }
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    float sum = 0.0f;
    for (int t = lane; t < len; t += 32) {
        float p = expf(sc[t] - mx);
        sc[t] = p;
        sum += p;
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    __syncwarp();
    for (int d = lane; d < head_dim; d += 32) {
        float acc = 0.0f;
        for (int t = 0; t < len; ++t) {
            const long long page = table[(long long)seq * max_blocks + t / block_size];
            const __nv_bfloat16* vr =
                v + (((size_t)page * block_size + t % block_size) * num_kv_heads + kvh) * head_dim;
            acc = fmaf(sc[t], __bfloat162float(vr[d]), acc);
        }
        out[((size_t)seq * num_heads + head) * head_dim + d] = acc / sum;
    }
}

// ---------------------------------------------------------------------------------------------
// Host side.
// ---------------------------------------------------------------------------------------------
static std::vector<int> pair_lengths(std::mt19937_64& rng, int num_seqs, int max_len) {
    std::vector<int> lens;
    std::uniform_int_distribution<int> pick(1, max_len);
    for (int pair = 0; pair < num_seqs / 2; ++pair) {
        int first = pair == 0 ? 1 : pick(rng);
        lens.push_back(first);
        lens.push_back(max_len + 1 - first);
    }
    if (num_seqs % 2) lens.push_back(pick(rng));
    std::shuffle(lens.begin(), lens.end(), rng);
    return lens;
}

static float bf16_to_float(unsigned short bits) {
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

struct Inputs {
    Case c;
    int num_blocks = 0;
    size_t q_elems = 0, cache_elems = 0;
    long long total_tokens = 0;
    __nv_bfloat16 *q = nullptr, *k = nullptr, *v = nullptr, *out = nullptr;
    int *table = nullptr, *lens = nullptr;
    float* ref = nullptr;
    std::vector<int> h_lens;
};

static Inputs make_inputs(const Case& c, uint64_t seed) {
    Inputs in;
    in.c = c;
    in.num_blocks = c.num_seqs * c.max_blocks + 7;
    const int max_len = c.max_blocks * c.block_size;
    const int row_elems = c.num_kv_heads * c.head_dim;
    in.q_elems = (size_t)c.num_seqs * c.num_heads * c.head_dim;
    in.cache_elems = (size_t)in.num_blocks * c.block_size * row_elems;
    CK(cudaMalloc(&in.q, in.q_elems * 2));
    CK(cudaMalloc(&in.out, in.q_elems * 2));
    CK(cudaMalloc(&in.k, in.cache_elems * 2));
    CK(cudaMalloc(&in.v, in.cache_elems * 2));
    CK(cudaMalloc(&in.table, (size_t)c.num_seqs * c.max_blocks * 4));
    CK(cudaMalloc(&in.lens, (size_t)c.num_seqs * 4));
    CK(cudaMalloc(&in.ref, in.q_elems * 4));

    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> sc(0.5f, 1.5f), off(-0.2f, 0.2f);
    fill_normal<<<1024, 256>>>(in.q, in.q_elems, seed * 3 + 0, sc(rng), off(rng));
    fill_normal<<<4096, 256>>>(in.k, in.cache_elems, seed * 3 + 1, sc(rng), off(rng));
    fill_normal<<<4096, 256>>>(in.v, in.cache_elems, seed * 3 + 2, sc(rng), off(rng));
    CK(cudaGetLastError());

    std::vector<int> pages(in.num_blocks);
    for (int i = 0; i < in.num_blocks; ++i) pages[i] = i;
    std::shuffle(pages.begin(), pages.end(), rng);
    std::vector<int> table(pages.begin(), pages.begin() + (size_t)c.num_seqs * c.max_blocks);
    std::vector<int> unused(pages.begin() + (size_t)c.num_seqs * c.max_blocks, pages.end());
    in.h_lens = c.lens.empty() ? pair_lengths(rng, c.num_seqs, max_len) : c.lens;
    if ((int)in.h_lens.size() != c.num_seqs) {
        fprintf(stderr, "%s: %zu lengths for %d sequences\n", c.name, in.h_lens.size(), c.num_seqs);
        exit(2);
    }
    in.total_tokens = 0;
    for (int L : in.h_lens) {
        if (L < 1 || L > max_len) {
            fprintf(stderr, "%s: length %d out of [1, %d]\n", c.name, L, max_len);
            exit(2);
        }
        in.total_tokens += L;
    }
    CK(cudaMemcpy(in.table, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(in.lens, in.h_lens.data(), in.h_lens.size() * 4, cudaMemcpyHostToDevice));
    poison_stale<<<c.num_seqs * c.max_blocks, 256>>>(in.k, in.v, in.table, in.lens, c.max_blocks, c.block_size,
                                                     row_elems);
    int* d_unused = nullptr;
    CK(cudaMalloc(&d_unused, unused.size() * 4));
    CK(cudaMemcpy(d_unused, unused.data(), unused.size() * 4, cudaMemcpyHostToDevice));
    poison_pages<<<256, 256>>>(in.k, in.v, d_unused, (int)unused.size(), (size_t)c.block_size * row_elems);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d_unused));

    float* scores = nullptr;
    CK(cudaMalloc(&scores, (size_t)c.num_seqs * c.num_heads * max_len * 4));
    const int warps = c.num_seqs * c.num_heads;
    reference_attention<<<(warps + 3) / 4, 128>>>(in.q, in.k, in.v, in.table, in.lens, in.ref, scores, c.num_seqs,
                                                   c.num_heads, c.num_kv_heads, c.head_dim, c.block_size,
                                                   c.max_blocks);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(scores));
    return in;
}

static void free_inputs(Inputs& in) {
    CK(cudaFree(in.q));
    CK(cudaFree(in.out));
    CK(cudaFree(in.k));
    CK(cudaFree(in.v));
    CK(cudaFree(in.table));
    CK(cudaFree(in.lens));
    CK(cudaFree(in.ref));
}

static void call(SolveFn fn, const Inputs& in) {
    const Case& c = in.c;
    fn(in.q, in.k, in.v, in.table, in.lens, in.out, c.num_seqs, c.num_heads, c.num_kv_heads, c.head_dim,
       c.block_size, c.max_blocks);
}

// Returns true when the output passes the judge's rule.
static bool check(SolveFn fn, const Inputs& in, const char* who) {
    fill_u16<<<1024, 256>>>(reinterpret_cast<unsigned short*>(in.out), in.q_elems, 0x7FC0);  // NaN
    CK(cudaGetLastError());
    call(fn, in);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<unsigned short> out(in.q_elems);
    std::vector<float> ref(in.q_elems);
    CK(cudaMemcpy(out.data(), in.out, in.q_elems * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ref.data(), in.ref, in.q_elems * 4, cudaMemcpyDeviceToHost));
    double ss_ref = 0.0, ss_err = 0.0, max_abs = 0.0, worst = 0.0;
    size_t bad = 0, nonfinite = 0, worst_at = 0;
    for (size_t i = 0; i < in.q_elems; ++i) ss_ref += (double)ref[i] * ref[i];
    const double rms = std::sqrt(ss_ref / (double)in.q_elems);
    for (size_t i = 0; i < in.q_elems; ++i) {
        const double o = bf16_to_float(out[i]), r = ref[i];
        if (!std::isfinite(o)) {
            ++nonfinite;
            ++bad;
            continue;
        }
        const double err = std::fabs(o - r);
        const double allowed = 0.016 * std::fabs(r) + 0.01 * rms;
        ss_err += err * err;
        max_abs = std::max(max_abs, err);
        if (err / allowed > worst) {
            worst = err / allowed;
            worst_at = i;
        }
        if (err > allowed) ++bad;
    }
    const double rel_l2 = std::sqrt(ss_err / std::max(ss_ref, 1e-30));
    const bool ok = bad == 0 && rel_l2 <= 0.016;
    const Case& c = in.c;
    const size_t hd = c.head_dim, H = c.num_heads;
    printf("  %-4s %-26s %s  max|err| %.3e  worst err/allowed %.3f (seq %zu head %zu dim %zu)  rel_l2 %.2e  bad %zu  "
           "non-finite %zu\n",
           ok ? "PASS" : "FAIL", c.name, who, max_abs, worst, worst_at / (H * hd), (worst_at / hd) % H, worst_at % hd,
           rel_l2, bad, nonfinite);
    return ok;
}

static double time_ms(SolveFn fn, const Inputs& in, void* flush, size_t flush_bytes, int reps) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) call(fn, in);  // warm up (scratch allocation, module load)
    CK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int i = 0; i < reps; ++i) {
        CK(cudaMemsetAsync(flush, i & 0xFF, flush_bytes));
        CK(cudaEventRecord(a));
        call(fn, in);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t = 0.0f;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

static double copy_bandwidth_gbs() {
    const size_t bytes = (size_t)1 << 30;
    void *src = nullptr, *dst = nullptr;
    CK(cudaMalloc(&src, bytes));
    CK(cudaMalloc(&dst, bytes));
    CK(cudaMemset(src, 1, bytes));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    std::vector<float> ms;
    for (int i = 0; i < 10; ++i) {
        CK(cudaEventRecord(a));
        CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t = 0.0f;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    CK(cudaFree(src));
    CK(cudaFree(dst));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return 2.0 * bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

int main(int argc, char** argv) {
    SolveFn other = nullptr;
    const char* other_name = nullptr;
    if (argc > 1) {
        void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
            return 2;
        }
        other = reinterpret_cast<SolveFn>(dlsym(lib, "solve"));
        if (!other) {
            fprintf(stderr, "no solve in %s\n", argv[1]);
            return 2;
        }
        other_name = argv[1];
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, L2 %d MiB; PA_V2_PARTITION=%d PA_V2_L2_HINT=%d\n", prop.name,
           prop.multiProcessorCount, prop.l2CacheSize >> 20, PA_V2_PARTITION, PA_V2_L2_HINT);

    const std::vector<Case> cases = {
        // problem.toml tests
        {"single-page", 1, 1, 1, 16, 16, 1, false, {}},
        {"two-seqs-mha", 2, 2, 2, 32, 4, 3, false, {}},
        {"three-seqs-gqa", 3, 8, 2, 64, 16, 5, false, {}},
        {"block-size-one-mqa", 4, 4, 1, 64, 1, 37, false, {}},
        {"head-dim-80", 5, 6, 3, 80, 5, 13, false, {}},
        {"prime-pages", 7, 4, 4, 128, 16, 11, false, {}},
        {"group-of-eight", 2, 16, 2, 128, 16, 17, false, {}},
        {"head-dim-256", 2, 4, 2, 256, 8, 9, false, {}},
        {"llama-batch", 33, 32, 8, 128, 16, 129, false, {}},
        {"long-context", 3, 64, 8, 128, 16, 1031, false, {}},
        {"many-short-seqs", 257, 16, 2, 64, 32, 9, false, {}},
        // extra paths: partition boundaries, group > 8, odd head_dim / block_size, bs 1 long
        {"boundaries-512", 8, 8, 2, 128, 16, 64, false, {512, 513, 511, 1, 1024, 16, 17, 1023}},
        {"group-16", 3, 32, 2, 128, 16, 40, false, {}},
        {"group-3-hd96", 4, 9, 3, 96, 16, 70, false, {}},
        {"hd100-nonvec-bs7", 3, 4, 1, 100, 7, 90, false, {}},
        {"hd192-bs32", 2, 6, 3, 192, 32, 40, false, {}},
        {"bs48-npow2-page16", 5, 16, 4, 128, 48, 30, false, {}},
        {"bs1-long-mha", 2, 8, 8, 64, 1, 1500, false, {}},
        {"hd64-mqa-long", 4, 8, 1, 64, 16, 100, false, {}},
        {"hd32-bs8", 3, 4, 2, 32, 8, 200, false, {}},
        {"hd8-bs3", 3, 4, 2, 8, 3, 300, false, {}},
        // problem.toml benchmarks
        {"gqa-64seq-4k", 64, 32, 8, 128, 16, 256, true, {}},
        {"gqa-64seq-8k", 64, 32, 8, 128, 16, 512, true, {}},
        {"mha-32seq-4k", 32, 32, 32, 128, 16, 256, true, {}},
        {"gqa8-256seq-2k", 256, 64, 8, 128, 16, 128, true, {}},
    };

    const double copy_gbs = copy_bandwidth_gbs();
    printf("device-to-device copy bandwidth (read + write): %.0f GB/s\n\n", copy_gbs);
    const size_t flush_bytes = (size_t)512 << 20;
    void* flush = nullptr;
    CK(cudaMalloc(&flush, flush_bytes));

    int failures = 0, checks = 0;
    if (other) printf("comparing with solve() of %s\n", other_name);
    struct Row {
        std::string name;
        double bytes, floor_bytes, ms, other_ms;
    };
    std::vector<Row> rows;
    for (size_t ci = 0; ci < cases.size(); ++ci) {
        const Case& c = cases[ci];
        for (int s = 0; s < (c.bench ? 1 : 2); ++s) {
            Inputs in = make_inputs(c, 1000 + 17 * ci + s);
            ++checks;
            if (!check(solve, in, "v2")) ++failures;
            if (other) {
                ++checks;
                if (!check(other, in, "other")) ++failures;
            }
            if (c.bench && s == 0) {
                Row row;
                row.name = c.name;
                row.bytes = 4.0 * c.num_seqs * c.num_heads * c.head_dim +
                            4.0 * c.num_kv_heads * c.head_dim * (double)in.total_tokens;
                const double floor_tokens = (double)(c.num_seqs / 2) * (c.max_blocks * c.block_size + 1) + c.num_seqs % 2;
                row.floor_bytes = 4.0 * c.num_seqs * c.num_heads * c.head_dim + 4.0 * c.num_kv_heads * c.head_dim * floor_tokens +
                                  4.0 * c.num_seqs;
                row.ms = time_ms(solve, in, flush, flush_bytes, 30);
                row.other_ms = other ? time_ms(other, in, flush, flush_bytes, 30) : 0.0;
                rows.push_back(row);
            }
            free_inputs(in);
        }
    }

    printf("\n%-16s %10s %10s %9s %8s %8s", "benchmark", "MB", "median us", "GB/s", "%copy", "%4.8TB");
    if (other) printf(" %12s %9s %8s", "other us", "GB/s", "%copy");
    printf("\n");
    double log_sum = 0.0, log_other = 0.0;
    for (const Row& row : rows) {
        const double gbs = row.bytes / (row.ms * 1e-3) / 1e9;
        printf("%-16s %10.1f %10.1f %9.0f %7.1f%% %7.1f%%", row.name.c_str(), row.bytes / 1e6, row.ms * 1e3, gbs,
               100.0 * gbs / copy_gbs, 100.0 * gbs / 4800.0);
        if (other) {
            const double ogbs = row.bytes / (row.other_ms * 1e-3) / 1e9;
            printf(" %12.1f %9.0f %7.1f%%", row.other_ms * 1e3, ogbs, 100.0 * ogbs / copy_gbs);
            log_other += std::log(row.other_ms);
        }
        printf("   (floor-formula bytes %.1f MB)\n", row.floor_bytes / 1e6);
        log_sum += std::log(row.ms);
    }
    if (!rows.empty()) {
        printf("geomean median time: v2 %.1f us", 1e3 * std::exp(log_sum / rows.size()));
        if (other) printf(", other %.1f us", 1e3 * std::exp(log_other / rows.size()));
        printf("\n");
    }
    CK(cudaFree(flush));
    printf("\n%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
