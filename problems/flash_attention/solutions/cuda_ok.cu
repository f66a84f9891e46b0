// Accepted: blocks of 32 query rows with 4 threads per row (128 threads); each thread holds every
// 4th dimension of its row's q (pre-multiplied by 1 / sqrt(d)) and of the output accumulator.
// K and V tiles of 32 keys are staged in shared memory as float and shared by all 32 rows; the
// 32 scores of a tile are formed first (4-thread shuffles), then one online-softmax update per
// tile. With the causal mask the tiles right of the block's last row are never loaded.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>

constexpr int kRows = 32;
constexpr int kKeys = 32;
constexpr int kThreads = 128;

template <int D>
__global__ void __launch_bounds__(kThreads) attention_tiles(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                            const __nv_bfloat16* v, __nv_bfloat16* out, int seq,
                                                            int mask_mode, float scale) {
    constexpr int kPerThread = D / 4;
    __shared__ float ks[kKeys][D];
    __shared__ float vs[kKeys][D];
    const int r = threadIdx.x / 4;
    const int sub = threadIdx.x % 4;
    const int row0 = blockIdx.x * kRows;
    const int row = row0 + r;
    const long long base = (long long)blockIdx.y * seq * D;
    const bool causal = mask_mode == 2;

    float qv[kPerThread], acc[kPerThread];
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
        qv[i] = row < seq ? __bfloat162float(q[base + (long long)row * D + 4 * i + sub]) * scale : 0.0f;
        acc[i] = 0.0f;
    }
    float m = -INFINITY;
    float l = 0.0f;
    const int key_end = causal ? min(seq, row0 + kRows) : seq;
    for (int k0 = 0; k0 < key_end; k0 += kKeys) {
        __syncthreads();  // the previous tile is no longer read
        for (int e = threadIdx.x; e < kKeys * D; e += kThreads) {
            int j = e / D;
            int d = e % D;
            int key = k0 + j;
            ks[j][d] = key < seq ? __bfloat162float(k[base + (long long)key * D + d]) : 0.0f;
            vs[j][d] = key < seq ? __bfloat162float(v[base + (long long)key * D + d]) : 0.0f;
        }
        __syncthreads();
        float s[kKeys];
        float tile_max = -INFINITY;
#pragma unroll
        for (int j = 0; j < kKeys; ++j) {
            float part = 0.0f;
#pragma unroll
            for (int i = 0; i < kPerThread; ++i) part = fmaf(qv[i], ks[j][4 * i + sub], part);
            part += __shfl_xor_sync(0xffffffffu, part, 1);
            part += __shfl_xor_sync(0xffffffffu, part, 2);
            int key = k0 + j;
            bool visible = key < seq && (!causal || key <= row);
            s[j] = visible ? part : -INFINITY;
            tile_max = fmaxf(tile_max, s[j]);
        }
        float new_m = fmaxf(m, tile_max);
        if (new_m == -INFINITY) continue;  // nothing visible to this row yet
        float corr = expf(m - new_m);
        l *= corr;
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) acc[i] *= corr;
#pragma unroll
        for (int j = 0; j < kKeys; ++j) {
            float p = expf(s[j] - new_m);
            l += p;
#pragma unroll
            for (int i = 0; i < kPerThread; ++i) acc[i] = fmaf(p, vs[j][4 * i + sub], acc[i]);
        }
        m = new_m;
    }
    if (row < seq) {
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) out[base + (long long)row * D + 4 * i + sub] = __float2bfloat16(acc[i] / l);
    }
}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* out,
                      int batch, int heads, int seq, int head_dim, int mask_mode) {
    dim3 grid((seq + kRows - 1) / kRows, batch * heads);
    float scale = 1.0f / sqrtf((float)head_dim);
    if (head_dim == 64) {
        attention_tiles<64><<<grid, kThreads>>>(q, k, v, out, seq, mask_mode, scale);
    } else {
        attention_tiles<128><<<grid, kThreads>>>(q, k, v, out, seq, mask_mode, scale);
    }
}
