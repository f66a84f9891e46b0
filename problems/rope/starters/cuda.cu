#include <cuda_bf16.h>
#include <cuda_runtime.h>

// One block per token; heads of q first, then heads of k.
__global__ void rope_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const int* positions,
                            __nv_bfloat16* q_out, __nv_bfloat16* k_out, int num_heads, int num_kv_heads,
                            int head_dim, int layout, float theta) {
    // TODO: token t = blockIdx.x, p = (float)positions[t]. Loop over the (head, pair) items of the
    // token with threadIdx.x and a stride of blockDim.x: head h < num_heads is q's, the rest k's
    // (row start (t * heads + h) * head_dim, 64-bit). Pair i: angle = p * powf(theta, -2.0f * i /
    // head_dim); sincosf; elements (2i, 2i + 1) when layout == 1, (i, i + head_dim / 2) when
    // layout == 2; write a * c - b * s and b * c + a * s.
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const int* positions, __nv_bfloat16* q_out,
                      __nv_bfloat16* k_out, int num_tokens, int num_heads, int num_kv_heads, int head_dim, int layout,
                      int theta) {
    rope_kernel<<<num_tokens, 256>>>(q, k, positions, q_out, k_out, num_heads, num_kv_heads, head_dim, layout,
                                     (float)theta);
}
