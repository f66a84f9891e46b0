"""Accepted: a RawKernel with one block per token; the token's cosines and sines are computed once
into shared memory and applied to every head of q and k (bf16 bits widened and rounded by hand)."""

import math

import cupy as cp

_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short v) { return __uint_as_float(((unsigned)v) << 16); }
__device__ unsigned short narrow(float f) {
    unsigned u = __float_as_uint(f);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
extern "C" __global__ void rope_rows(const unsigned short* q, const unsigned short* k, const int* positions,
                                     unsigned short* q_out, unsigned short* k_out, int num_heads, int num_kv_heads,
                                     int head_dim, int layout, float log2_theta) {
    __shared__ float cs[128], sn[128];
    int t = blockIdx.x, half = head_dim / 2;
    float p = (float)positions[t];
    for (int i = threadIdx.x; i < half; i += blockDim.x) {
        sincosf(p * exp2f(-(2.0f * i / head_dim) * log2_theta), &sn[i], &cs[i]);
    }
    __syncthreads();
    for (int item = threadIdx.x; item < (num_heads + num_kv_heads) * half; item += blockDim.x) {
        int h = item / half, i = item % half;
        bool is_q = h < num_heads;
        long long row = is_q ? ((long long)t * num_heads + h) * head_dim
                             : ((long long)t * num_kv_heads + (h - num_heads)) * head_dim;
        const unsigned short* src = is_q ? q : k;
        unsigned short* dst = is_q ? q_out : k_out;
        long long first = row + (layout == 1 ? 2 * i : i), second = row + (layout == 1 ? 2 * i + 1 : i + half);
        float a = widen(src[first]), b = widen(src[second]);
        dst[first] = narrow(a * cs[i] - b * sn[i]);
        dst[second] = narrow(b * cs[i] + a * sn[i]);
    }
}
""",
    "rope_rows",
)


def solve(
    q: cp.ndarray,
    k: cp.ndarray,
    positions: cp.ndarray,
    q_out: cp.ndarray,
    k_out: cp.ndarray,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> None:
    _kernel(
        (num_tokens,),
        (256,),
        (
            q,
            k,
            positions,
            q_out,
            k_out,
            cp.int32(num_heads),
            cp.int32(num_kv_heads),
            cp.int32(head_dim),
            cp.int32(layout),
            cp.float32(math.log2(theta)),
        ),
    )
