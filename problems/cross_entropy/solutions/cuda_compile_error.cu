// Compile error: targets declared as float pointers: a float cannot index an array.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void cross_entropy_rows(const __nv_bfloat16* logits, const float* targets, float* loss, int m, int v) {
    const __nv_bfloat16* row = logits + (long long)blockIdx.x * v;
    if (threadIdx.x == 0) atomicAdd(loss, -__bfloat162float(row[targets[blockIdx.x]]) / m);
}

extern "C" void solve(const __nv_bfloat16* logits, const int* targets, float* loss, int m, int v) {
    cross_entropy_rows<<<m, 256>>>(logits, targets, loss, m, v);
}
