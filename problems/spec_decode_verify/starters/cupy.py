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
    // TODO:
    // 1. The tests in order: for n = 0, 1, ...: x = ids[seq * num_draft + n], q = draft_probs at
    //    row (seq * num_draft + n), column x; p = target_probs at row (seq * (num_draft + 1) + n),
    //    column x; stop at the first with !(accept_uniforms[seq * num_draft + n] * q < p). Thread 0
    //    writes n to num_accepted[seq]. (Use 64-bit row offsets.)
    // 2. The weights d: max(0, p_n - q_n) over the vocabulary when n < num_draft, else the row
    //    target_probs[seq, num_draft]. Each thread adds up a strided share; block_scan's total is Z.
    // 3. Tiles of THREADS tokens in order: running = carry + block_scan(d); the next token is the
    //    smallest i with d > 0 and running > sample_uniforms[seq] * Z (block_min); thread 0 writes it.
}
""",
    "verify_kernel",
)


def solve(draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token, batch, num_draft, vocab):  # fmt: skip
    args = (draft_token_ids, draft_probs, target_probs, accept_uniforms, sample_uniforms, num_accepted, next_token)
    verify_kernel((batch,), (256,), (*args, cp.int32(num_draft), cp.int32(vocab)))
