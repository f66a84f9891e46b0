import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(
    q_ptr,
    k_ptr,
    pos_ptr,
    q_out_ptr,
    k_out_ptr,
    num_heads,
    num_kv_heads,
    head_dim,
    layout,
    log2_theta,
    HALF_BLOCK: tl.constexpr,
):
    token = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)  # heads 0 .. num_heads - 1 are q's, the rest k's
    pair = tl.arange(0, HALF_BLOCK)
    half = head_dim // 2
    # TODO: position = positions[token] as fp32; inverse frequency exp2(-(2 * pair / head_dim) *
    # log2_theta); angle = position * inverse frequency; c, s = cos and sin of the angle (fp32).
    # Pick the row: q's head `head` or k's head `head - num_heads` (start at
    # (token * heads + head) * head_dim); the pair's elements are 2 * pair and 2 * pair + 1 when
    # layout == 1, pair and pair + half when layout == 2. Load a and b (masked where pair >= half),
    # store a * c - b * s and b * c + a * s (bf16) at the same places of the output.
    pass


def solve(
    q: torch.Tensor,
    k: torch.Tensor,
    positions: torch.Tensor,
    q_out: torch.Tensor,
    k_out: torch.Tensor,
    num_tokens: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    layout: int,
    theta: int,
) -> None:
    half_block = triton.next_power_of_2(head_dim // 2)
    grid = (num_tokens, num_heads + num_kv_heads)
    rope_kernel[grid](
        q,
        k,
        positions,
        q_out,
        k_out,
        num_heads,
        num_kv_heads,
        head_dim,
        layout,
        float(torch.tensor(float(theta), dtype=torch.float64).log2()),
        HALF_BLOCK=half_block,
    )
