"""Accepted: the one-warp-per-(sequence, head) kernel as a CuPy RawKernel. CuPy hands the bf16
tensors over as uint16 arrays: the kernel widens the bits itself and rounds back to nearest-even."""

import math

import cupy as cp

_kernel = cp.RawKernel(
    r"""
__device__ float widen(unsigned short h) { return __uint_as_float(((unsigned)h) << 16); }
__device__ unsigned short narrow(float f) {
    unsigned u = __float_as_uint(f);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
extern "C" __global__ void attend(const unsigned short* q, const unsigned short* k_cache,
                                  const unsigned short* v_cache, const int* block_table, const int* seq_lens,
                                  unsigned short* out, int num_seqs, int num_heads, int num_kv_heads,
                                  int head_dim, int block_size, int max_blocks, float scale) {
    int warp_id = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp_id >= num_seqs * num_heads) return;
    int seq = warp_id / num_heads, head = warp_id % num_heads;
    int kv_head = head / (num_heads / num_kv_heads);
    int length = seq_lens[seq];
    float qv[8], acc[8];
    for (int e = 0; e < 8; ++e) {
        int d = lane + 32 * e;
        qv[e] = d < head_dim ? widen(q[((long long)seq * num_heads + head) * head_dim + d]) * scale : 0.0f;
        acc[e] = 0.0f;
    }
    float run_max = -1e30f, run_sum = 0.0f;
    for (int t = 0; t < length; ++t) {
        int page = block_table[(long long)seq * max_blocks + t / block_size];
        long long row = ((long long)page * block_size + t % block_size) * num_kv_heads + kv_head;
        float s = 0.0f;
        for (int e = 0; e < 8; ++e) {
            int d = lane + 32 * e;
            if (d < head_dim) s += qv[e] * widen(k_cache[row * head_dim + d]);
        }
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        float new_max = fmaxf(run_max, s);
        float alpha = expf(run_max - new_max);
        float p = expf(s - new_max);
        run_sum = run_sum * alpha + p;
        for (int e = 0; e < 8; ++e) {
            int d = lane + 32 * e;
            float v = d < head_dim ? widen(v_cache[row * head_dim + d]) : 0.0f;
            acc[e] = acc[e] * alpha + p * v;
        }
        run_max = new_max;
    }
    for (int e = 0; e < 8; ++e) {
        int d = lane + 32 * e;
        if (d < head_dim) out[((long long)seq * num_heads + head) * head_dim + d] = narrow(acc[e] / run_sum);
    }
}
""",
    "attend",
)


def solve(q, k_cache, v_cache, block_table, seq_lens, out, num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_blocks_per_seq):  # fmt: skip
    threads = 128
    blocks = (num_seqs * num_heads * 32 + threads - 1) // threads
    args = (q, k_cache, v_cache, block_table, seq_lens, out, cp.int32(num_seqs), cp.int32(num_heads),
            cp.int32(num_kv_heads), cp.int32(head_dim), cp.int32(block_size), cp.int32(max_blocks_per_seq),
            cp.float32(1.0 / math.sqrt(head_dim)))  # fmt: skip
    _kernel((blocks,), (threads,), args)
