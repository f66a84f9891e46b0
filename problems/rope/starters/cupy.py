import cupy as cp

# CuPy has no bfloat16 dtype: q, k and the outputs arrive as uint16 arrays holding the bf16 bits
# (widen with a 16-bit shift, round back to nearest-even by hand).
rope_kernel = cp.RawKernel(
    r"""
extern "C" __global__ void rope_kernel(const unsigned short* q, const unsigned short* k, const int* positions,
                                       unsigned short* q_out, unsigned short* k_out, int num_heads,
                                       int num_kv_heads, int head_dim, int layout, float theta) {
    // TODO: one block per token: for each (head, pair) of the token, angle = position *
    // powf(theta, -2i / head_dim), sincosf, rotate the pair (layout 1: 2i, 2i + 1; layout 2:
    // i, i + head_dim / 2), store the rotated pair
}
""",
    "rope_kernel",
)


def solve(
    q: cp.ndarray,
    k: cp.ndarray,
    positions: cp.ndarray,
    q_out: cp.ndarray,
    k_out: cp.ndarray,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> None:
    rope_kernel(
        (num_tokens,),
        (256,),
        (
            q,
            k,
            positions,
            q_out,
            k_out,
            cp.int32(num_heads),
            cp.int32(num_kv_heads),
            cp.int32(head_dim),
            cp.int32(layout),
            cp.float32(theta),
        ),
    )
