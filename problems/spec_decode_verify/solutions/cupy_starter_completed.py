import cupy as cp

# draft_token_ids is an int32 array, the probabilities and uniforms float32, the outputs int32: the
# CUDA C++ kernel as a RawKernel.
verify_kernel = cp.RawKernel(
    r"""
// One block of THREADS threads per sequence. Every probability is a multiple of 2^-20, so every
// sum below is exact in fp32 whatever the order the block adds in.
#define THREADS 256
#define WARPS (THREADS / 32)

// Inclusive prefix sum over the block in thread order; *total gets the block's sum (every thread).
__device__ float block_scan(float v, float* scratch, float* total) {
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = 1; d < 32; d *= 2) {
        float n = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += n;
    }
    __syncthreads();  // the previous call's readers are done with scratch
    if (lane == 31) scratch[warp] = v;
    __syncthreads();
    float offset = 0.0f, sum = 0.0f;
    for (int w = 0; w < WARPS; ++w) {
        if (w < warp) offset += scratch[w];
        sum += scratch[w];
    }
    *total = sum;
    return v + offset;
}

__device__ int block_min(int v, int* scratch) {
    for (int d = 16; d > 0; d /= 2) v = min(v, __shfl_xor_sync(0xffffffffu, v, d));
    __syncthreads();
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    int m = scratch[0];
    for (int w = 1; w < WARPS; ++w) m = min(m, scratch[w]);
    return m;
}

extern "C" __global__ void verify_kernel(const int* ids, const float* draft_probs, const float* target_probs,
                                         const float* accept_uniforms, const float* sample_uniforms, int* num_accepted,
                              int* next_token, int num_draft, int vocab) {
    __shared__ float fscratch[WARPS];
    __shared__ int iscratch[WARPS];
    const long long seq = blockIdx.x;
    // The tests in order (every thread walks them: a few cached loads).
    int n = 0;
    while (n < num_draft) {
        long long at = seq * num_draft + n;
        int x = ids[at];
        float q = draft_probs[at * vocab + x];
        float p = target_probs[(seq * (num_draft + 1) + n) * vocab + x];
        if (!(accept_uniforms[at] * q < p)) break;
        ++n;
    }
    if (threadIdx.x == 0) num_accepted[seq] = n;
    // The next token's weights: max(0, p_n - q_n) after a rejection, p_K after none.
    const bool rejected = n < num_draft;
    const float* p_row = target_probs + (seq * (num_draft + 1) + n) * vocab;
    const float* q_row = draft_probs + (seq * num_draft + (rejected ? n : 0)) * vocab;
    float mine = 0.0f, total;
    for (int i = threadIdx.x; i < vocab; i += THREADS) mine += rejected ? fmaxf(p_row[i] - q_row[i], 0.0f) : p_row[i];
    block_scan(mine, fscratch, &total);
    // The draw: tiles in token order, a block scan with a carry; the block leaves at the hit.
    const float target = sample_uniforms[seq] * total;
    float carry = 0.0f;
    for (int base = 0; base < vocab; base += THREADS) {
        int i = base + threadIdx.x;
        float d = 0.0f;
        if (i < vocab) d = rejected ? fmaxf(p_row[i] - q_row[i], 0.0f) : p_row[i];
        float tile, running = carry + block_scan(d, fscratch, &tile);
        int hit = block_min(d > 0.0f && running > target ? i : vocab, iscratch);
        if (hit < vocab) {  // the same in every thread: the block leaves together
            if (threadIdx.x == 0) next_token[seq] = hit;
            return;
        }
        carry += tile;
    }
}
""",
    "verify_kernel",
)


def solve(draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token, batch, num_draft, vocab):  # fmt: skip
    args = (draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token)
    verify_kernel((batch,), (256,), (*args, cp.int32(num_draft), cp.int32(vocab)))
