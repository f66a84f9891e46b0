// Compile error: sincosf's outputs passed by value instead of by address.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void rope_kernel(const __nv_bfloat16* q, __nv_bfloat16* q_out, const int* positions, int heads, int head_dim,
                            float theta) {
    int t = blockIdx.x;
    for (int item = threadIdx.x; item < heads * (head_dim / 2); item += blockDim.x) {
        int h = item / (head_dim / 2), i = item % (head_dim / 2);
        float c, s;
        sincosf(positions[t] * powf(theta, -2.0f * i / head_dim), s, c);
        long long row = ((long long)t * heads + h) * head_dim;
        float a = __bfloat162float(q[row + i]), b = __bfloat162float(q[row + i + head_dim / 2]);
        q_out[row + i] = __float2bfloat16(a * c - b * s);
        q_out[row + i + head_dim / 2] = __float2bfloat16(b * c + a * s);
    }
}

extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const int* positions, __nv_bfloat16* q_out,
                      __nv_bfloat16* k_out, int num_tokens, int num_heads, int num_kv_heads, int head_dim, int layout,
                      int theta) {
    rope_kernel<<<num_tokens, 256>>>(q, q_out, positions, num_heads, head_dim, (float)theta);
    rope_kernel<<<num_tokens, 256>>>(k, k_out, positions, num_kv_heads, head_dim, (float)theta);
}
