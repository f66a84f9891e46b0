import cupy as cp

# draft_token_ids is an int32 array, the probabilities and uniforms float32, the outputs int32.
verify_kernel = cp.RawKernel(
    r"""
// A block of 512 threads per sequence, in integers: the num_draft tests by one warp (a ballot
// finds the first rejection), the weights as units of 2^-20 read four tokens a thread with one
// 16-byte load, and a draw that leaves at the tile holding the sample.
#define THREADS 512
#define WARPS (THREADS / 32)
#define UNITS_F 1048576.0f

__device__ int block_scan(int v, int* scratch, int* total) {  // inclusive, thread order; *total: the sum
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int d = 1; d < 32; d *= 2) {
        int n = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += n;
    }
    __syncthreads();
    if (lane == 31) scratch[warp] = v;
    __syncthreads();
    int offset = 0, sum = 0;
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

__device__ __forceinline__ int units(float x) { return __float2int_rn(x * UNITS_F); }

// The weights of chunk j in units: tokens 4j .. 4j + 3 from 16-byte loads when vocab % 4 == 0,
// else token j alone; 0 past the end. q_row is null for the bonus row.
__device__ __forceinline__ void load_weights(const float* p_row, const float* q_row, int vocab, bool vec, int j,
                                             int d[4]) {
    d[0] = d[1] = d[2] = d[3] = 0;
    if (vec) {
        if (4 * j >= vocab) return;
        float4 p = reinterpret_cast<const float4*>(p_row)[j];
        d[0] = units(p.x), d[1] = units(p.y), d[2] = units(p.z), d[3] = units(p.w);
        if (q_row) {
            float4 q = reinterpret_cast<const float4*>(q_row)[j];
            d[0] = max(d[0] - units(q.x), 0), d[1] = max(d[1] - units(q.y), 0);
            d[2] = max(d[2] - units(q.z), 0), d[3] = max(d[3] - units(q.w), 0);
        }
    } else if (j < vocab) {
        d[0] = q_row ? max(units(p_row[j]) - units(q_row[j]), 0) : units(p_row[j]);
    }
}

extern "C" __global__ void verify_kernel(const int* ids, const float* draft_probs, const float* target_probs,
                                         const float* accept_uniforms, const float* sample_uniforms, int* num_accepted,
                                         int* next_token, int num_draft, int vocab) {
    __shared__ int scratch[WARPS];
    __shared__ int accepted;
    const long long seq = blockIdx.x;
    if (threadIdx.x < 32) {  // lane i tests draft token i (num_draft <= 32)
        int i = threadIdx.x;
        bool rejects = false;
        if (i < num_draft) {
            long long at = seq * num_draft + i;
            int x = ids[at];
            float q = draft_probs[at * vocab + x];
            float p = target_probs[(seq * (num_draft + 1) + i) * vocab + x];
            rejects = !(accept_uniforms[at] * q < p);
        }
        unsigned rejections = __ballot_sync(0xffffffffu, rejects);
        if (i == 0) accepted = rejections ? __ffs(rejections) - 1 : num_draft;
    }
    __syncthreads();
    const int n = accepted;
    if (threadIdx.x == 0) num_accepted[seq] = n;
    const float* p_row = target_probs + (seq * (num_draft + 1) + n) * vocab;
    const float* q_row = n < num_draft ? draft_probs + (seq * num_draft + n) * vocab : nullptr;
    const bool vec = (vocab & 3) == 0;
    const int chunks = vec ? vocab / 4 : vocab;
    int mine = 0, total, d[4];
    for (int j = threadIdx.x; j < chunks; j += THREADS) {
        load_weights(p_row, q_row, vocab, vec, j, d);
        mine += d[0] + d[1] + d[2] + d[3];
    }
    block_scan(mine, scratch, &total);
    const double target = (double)sample_uniforms[seq] * (double)total;  // exact
    int carry = 0;
    for (int base = 0; base < chunks; base += THREADS) {
        int j = base + threadIdx.x;
        load_weights(p_row, q_row, vocab, vec, j, d);
        int tile, running = carry + block_scan(d[0] + d[1] + d[2] + d[3], scratch, &tile) - (d[0] + d[1] + d[2] + d[3]);
        int hit = vocab;
        for (int e = 0; e < 4; ++e) {
            running += d[e];
            if (d[e] > 0 && (double)running > target && hit == vocab) hit = vec ? 4 * j + e : j;
        }
        hit = block_min(hit, scratch);
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
    verify_kernel((batch,), (512,), (*args, cp.int32(num_draft), cp.int32(vocab)))
