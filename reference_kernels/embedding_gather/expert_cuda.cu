// Expert CUDA solution for embedding_gather (obeys the contract).
//
// One warp per token, eight warps per block: the warp's lane 0 value of the index is shared by
// a broadcast load, and the row moves in 16-byte steps (uint4: 8 bf16) when dim % 8 == 0 (every
// row then starts 16-byte aligned), in 4-byte steps when dim is even, else in 2-byte steps.
// Four independent loads per lane are issued before the stores to keep enough bytes in
// flight per SM. Offsets are 64-bit.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int WARPS = 8;
constexpr int UNROLL = 4;

template <typename Word>
__device__ __forceinline__ void copy_row(const Word* __restrict__ src, Word* __restrict__ dst, int words, int lane) {
    int i = lane;
    for (; i + 32 * (UNROLL - 1) < words; i += 32 * UNROLL) {
        Word v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = src[i + 32 * u];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) dst[i + 32 * u] = v[u];
    }
    for (; i < words; i += 32) dst[i] = src[i];
}

__global__ void __launch_bounds__(WARPS * 32) gather_rows(const __nv_bfloat16* __restrict__ table,
                                                          const int* __restrict__ indices,
                                                          __nv_bfloat16* __restrict__ out, int num_tokens, int dim) {
    const int lane = threadIdx.x & 31;
    const long long token = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5);
    if (token >= num_tokens) return;
    const long long row = indices[token];
    const __nv_bfloat16* src = table + row * dim;
    __nv_bfloat16* dst = out + token * dim;
    if (dim % 8 == 0) {
        copy_row(reinterpret_cast<const uint4*>(src), reinterpret_cast<uint4*>(dst), dim / 8, lane);
    } else if (dim % 2 == 0) {
        copy_row(reinterpret_cast<const unsigned*>(src), reinterpret_cast<unsigned*>(dst), dim / 2, lane);
    } else {
        copy_row(reinterpret_cast<const unsigned short*>(src), reinterpret_cast<unsigned short*>(dst), dim, lane);
    }
}

extern "C" void solve(const __nv_bfloat16* table, const int* indices, __nv_bfloat16* out, int num_tokens, int vocab,
                      int dim) {
    int blocks = (num_tokens + WARPS - 1) / WARPS;
    gather_rows<<<blocks, WARPS * 32>>>(table, indices, out, num_tokens, dim);
}
