#include <cuda_bf16.h>
#include <cuda_runtime.h>

// One thread per output element c[r, j]: blockDim = (32, 8), 32 columns by 8 rows per block.
__global__ void grouped_gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* w, const int* expert_offsets,
                                    __nv_bfloat16* c, int tokens, int experts, int n, int k) {
    int j = blockIdx.x * 32 + threadIdx.x;
    int r = blockIdx.y * 8 + threadIdx.y;
    if (r >= tokens || j >= n) return;
    // The last e in [0, experts) with expert_offsets[e] <= r: expert_offsets[0] = 0 <= r, and
    // expert_offsets[experts] = tokens > r, so it exists and owns r.
    int lo = 0, hi = experts - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (expert_offsets[mid] <= r) lo = mid;
        else hi = mid - 1;
    }
    const __nv_bfloat16* a_row = a + (long long)r * k;
    const __nv_bfloat16* w_row = w + ((long long)lo * n + j) * k;
    float sum = 0.0f;
    for (int p = 0; p < k; ++p) sum += __bfloat162float(a_row[p]) * __bfloat162float(w_row[p]);
    c[(long long)r * n + j] = __float2bfloat16(sum);
}

// All pointers are device pointers. Launch on the default stream; do not synchronize.
extern "C" void solve(const __nv_bfloat16* a, const __nv_bfloat16* w, const int* expert_offsets, __nv_bfloat16* c,
                      int tokens, int experts, int active_experts, int n, int k) {
    dim3 block(32, 8);
    dim3 grid((n + 31) / 32, (tokens + 7) / 8);
    grouped_gemm_kernel<<<grid, block>>>(a, w, expert_offsets, c, tokens, experts, n, k);
}
