#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>

// One warp per query row; lane owns dimensions lane, lane + 32, ... (head_dim / 32 of them: 2 or 4).
__global__ void attention_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                 __nv_bfloat16* out, int seq, int head_dim, int mask_mode, float scale) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    long long head = blockIdx.y;  // batch * heads + h
    if (row >= seq) return;
    const __nv_bfloat16* q_row = q + (head * seq + row) * head_dim;
    int last = mask_mode == 2 ? row : seq - 1;  // the last key this row may see
    // TODO: load this lane's dimensions of q_row as float. For each key j = 0 .. last:
    // the K row is k + (head * seq + j) * head_dim (V likewise); the lane's partial dot product
    // summed over the warp with __shfl_xor_sync gives score = q . k * scale; keep a running max m,
    // a rescaled running sum l and accumulator acc (online softmax: corr = expf(m - new_m), ...).
    // TODO: write acc / l as bf16 into out + (head * seq + row) * head_dim (the lane's dimensions).
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* out,
                      int batch, int heads, int seq, int head_dim, int mask_mode) {
    const int warps = 4;
    dim3 grid((seq + warps - 1) / warps, batch * heads);
    attention_kernel<<<grid, 32 * warps>>>(q, k, v, out, seq, head_dim, mask_mode, 1.0f / sqrtf((float)head_dim));
}
