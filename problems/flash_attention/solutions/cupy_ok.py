"""Accepted: blocks of 32 query rows, 4 threads per row (every 4th dimension each), K and V tiles of
32 keys staged in shared memory as float, the tile's 32 scores first, then one online-softmax
update per tile; on the uint16 bf16 bits (widened by a 16-bit shift, rounded back to nearest-even
with integer arithmetic)."""

import math

import cupy as cp

_kernel = cp.RawKernel(
    r"""
#define ROWS 32
#define KEYS 32
#define MAX_D 128
#define PER_THREAD (MAX_D / 4)

__device__ float widen(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }
__device__ unsigned short narrow(float x) {
    unsigned u = __float_as_uint(x);
    return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);  // finite values: nearest even
}

extern "C" __global__ void attention_tiles(const unsigned short* q, const unsigned short* k, const unsigned short* v,
                                           unsigned short* out, int seq, int head_dim, int mask_mode, float scale) {
    __shared__ float ks[KEYS][MAX_D];
    __shared__ float vs[KEYS][MAX_D];
    int r = threadIdx.x / 4;
    int sub = threadIdx.x % 4;
    int row0 = blockIdx.x * ROWS;
    int row = row0 + r;
    long long base = (long long)blockIdx.y * seq * head_dim;
    int per = head_dim / 4;
    bool causal = mask_mode == 2;
    float qv[PER_THREAD], acc[PER_THREAD];
#pragma unroll
    for (int i = 0; i < PER_THREAD; ++i) {
        qv[i] = (i < per && row < seq) ? widen(q[base + (long long)row * head_dim + 4 * i + sub]) * scale : 0.0f;
        acc[i] = 0.0f;
    }
    float m = __int_as_float(0xff800000);  // -infinity
    float l = 0.0f;
    int key_end = causal ? min(seq, row0 + ROWS) : seq;
    for (int k0 = 0; k0 < key_end; k0 += KEYS) {
        __syncthreads();
        for (int e = threadIdx.x; e < KEYS * head_dim; e += blockDim.x) {
            int j = e / head_dim;
            int d = e % head_dim;
            int key = k0 + j;
            ks[j][d] = key < seq ? widen(k[base + (long long)key * head_dim + d]) : 0.0f;
            vs[j][d] = key < seq ? widen(v[base + (long long)key * head_dim + d]) : 0.0f;
        }
        __syncthreads();
        float s[KEYS];
        float tile_max = __int_as_float(0xff800000);
#pragma unroll
        for (int j = 0; j < KEYS; ++j) {
            float part = 0.0f;
#pragma unroll
            for (int i = 0; i < PER_THREAD; ++i) {
                if (i < per) part = fmaf(qv[i], ks[j][4 * i + sub], part);
            }
            part += __shfl_xor_sync(0xffffffffu, part, 1);
            part += __shfl_xor_sync(0xffffffffu, part, 2);
            int key = k0 + j;
            bool visible = key < seq && (!causal || key <= row);
            s[j] = visible ? part : __int_as_float(0xff800000);
            tile_max = fmaxf(tile_max, s[j]);
        }
        float new_m = fmaxf(m, tile_max);
        if (new_m == __int_as_float(0xff800000)) continue;
        float corr = expf(m - new_m);
        l *= corr;
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) acc[i] *= corr;
#pragma unroll
        for (int j = 0; j < KEYS; ++j) {
            float p = expf(s[j] - new_m);
            l += p;
#pragma unroll
            for (int i = 0; i < PER_THREAD; ++i) {
                if (i < per) acc[i] = fmaf(p, vs[j][4 * i + sub], acc[i]);
            }
        }
        m = new_m;
    }
    if (row < seq) {
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            if (i < per) out[base + (long long)row * head_dim + 4 * i + sub] = narrow(acc[i] / l);
        }
    }
}
""",
    "attention_tiles",
)


def solve(q, k, v, out, batch, heads, seq, head_dim, mask_mode):  # fmt: skip
    args = (q, k, v, out, cp.int32(seq), cp.int32(head_dim), cp.int32(mask_mode), cp.float32(1.0 / math.sqrt(head_dim)))
    _kernel(((seq + 31) // 32, batch * heads), (128,), args)
