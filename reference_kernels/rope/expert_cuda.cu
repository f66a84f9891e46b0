// Expert CUDA solution for rope (obeys the contract).
//
// One block of 128 threads per token. The token's head_dim / 2 angles are turned into cosines and
// sines once (exp2f for the inverse frequency, sincosf: accurate, and on its fast path for angles
// below 1e5) and kept in shared memory; then the block streams every head of q and k through them
// with 16-byte loads and stores marked streaming (the data is touched once):
//   interleaved pairs (layout 1): one uint4 holds four whole pairs;
//   half-split (layout 2): the same eight columns of both halves, two uint4 per item.
// A head_dim that does not allow 16-byte vectors (not a multiple of 8, or of 16 for half-split)
// takes a scalar loop over (head, pair) items with the same shared angles.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int THREADS = 128;
constexpr int MAX_HALF = 128;  // head_dim <= 256

__device__ __forceinline__ void widen8(uint4 v, float* f) {
    const __nv_bfloat162* p = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        float2 t = __bfloat1622float2(p[i]);
        f[2 * i] = t.x, f[2 * i + 1] = t.y;
    }
}

__device__ __forceinline__ uint4 narrow8(const float* f) {
    uint4 v;
    __nv_bfloat162* p = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
    return v;
}

__device__ __forceinline__ long long row_of(int t, int h, int num_heads, int num_kv_heads, int head_dim) {
    return h < num_heads ? ((long long)t * num_heads + h) * head_dim
                         : ((long long)t * num_kv_heads + (h - num_heads)) * head_dim;
}

__global__ void __launch_bounds__(THREADS)
rope_token_kernel(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                  const int* __restrict__ positions, __nv_bfloat16* __restrict__ q_out,
                  __nv_bfloat16* __restrict__ k_out, int num_heads, int num_kv_heads, int head_dim, int layout,
                  float log2_theta) {
    __shared__ float cos_s[MAX_HALF], sin_s[MAX_HALF];
    const int t = blockIdx.x, half = head_dim / 2, heads = num_heads + num_kv_heads;
    const float p = (float)__ldg(positions + t);
    for (int i = threadIdx.x; i < half; i += THREADS) {
        const float inv_freq = exp2f(-(2.0f * i / head_dim) * log2_theta);
        sincosf(p * inv_freq, &sin_s[i], &cos_s[i]);
    }
    __syncthreads();

    if (layout == 1 && head_dim % 8 == 0) {
        const int per_head = head_dim / 8;  // uint4 vectors per head, four pairs each
        for (int v = threadIdx.x; v < heads * per_head; v += THREADS) {
            const int h = v / per_head, col = (v % per_head) * 8;
            const bool is_q = h < num_heads;
            const long long off = row_of(t, h, num_heads, num_kv_heads, head_dim) + col;
            const uint4 raw = __ldcs(reinterpret_cast<const uint4*>((is_q ? q : k) + off));
            float x[8], y[8];
            widen8(raw, x);
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const float c = cos_s[col / 2 + u], s = sin_s[col / 2 + u];
                y[2 * u] = x[2 * u] * c - x[2 * u + 1] * s;
                y[2 * u + 1] = x[2 * u + 1] * c + x[2 * u] * s;
            }
            __stcs(reinterpret_cast<uint4*>((is_q ? q_out : k_out) + off), narrow8(y));
        }
    } else if (layout == 2 && half % 8 == 0) {
        const int per_head = half / 8;  // items per head: eight columns of each half
        for (int v = threadIdx.x; v < heads * per_head; v += THREADS) {
            const int h = v / per_head, col = (v % per_head) * 8;
            const bool is_q = h < num_heads;
            const long long off = row_of(t, h, num_heads, num_kv_heads, head_dim) + col;
            const __nv_bfloat16* src = is_q ? q : k;
            __nv_bfloat16* dst = is_q ? q_out : k_out;
            const uint4 ra = __ldcs(reinterpret_cast<const uint4*>(src + off));
            const uint4 rb = __ldcs(reinterpret_cast<const uint4*>(src + off + half));
            float a[8], b[8], ya[8], yb[8];
            widen8(ra, a);
            widen8(rb, b);
#pragma unroll
            for (int u = 0; u < 8; ++u) {
                const float c = cos_s[col + u], s = sin_s[col + u];
                ya[u] = a[u] * c - b[u] * s;
                yb[u] = b[u] * c + a[u] * s;
            }
            __stcs(reinterpret_cast<uint4*>(dst + off), narrow8(ya));
            __stcs(reinterpret_cast<uint4*>(dst + off + half), narrow8(yb));
        }
    } else {
        for (int item = threadIdx.x; item < heads * half; item += THREADS) {
            const int h = item / half, i = item % half;
            const bool is_q = h < num_heads;
            const long long row = row_of(t, h, num_heads, num_kv_heads, head_dim);
            const long long first = row + (layout == 1 ? 2 * i : i);
            const long long second = row + (layout == 1 ? 2 * i + 1 : i + half);
            const __nv_bfloat16* src = is_q ? q : k;
            __nv_bfloat16* dst = is_q ? q_out : k_out;
            const float a = __bfloat162float(src[first]), b = __bfloat162float(src[second]);
            dst[first] = __float2bfloat16(a * cos_s[i] - b * sin_s[i]);
            dst[second] = __float2bfloat16(b * cos_s[i] + a * sin_s[i]);
        }
    }
}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const int* positions, __nv_bfloat16* q_out,
                      __nv_bfloat16* k_out, int num_tokens, int num_heads, int num_kv_heads, int head_dim, int layout,
                      int theta) {
    rope_token_kernel<<<num_tokens, THREADS>>>(q, k, positions, q_out, k_out, num_heads, num_kv_heads, head_dim,
                                               layout, log2f((float)theta));
}
