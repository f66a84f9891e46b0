import torch


def solve(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_table: torch.Tensor,
    prefix_lens: torch.Tensor,
    out: torch.Tensor,
    num_seqs: int,
    chunk_len: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    block_size: int,
    max_blocks_per_seq: int,
) -> None:
    # For each sequence s with prefix = prefix_lens[s]: gather its prefix keys and values from the
    # first ceil(prefix / block_size) pages of block_table[s] (k_cache[pages] flattened over pages
    # and offsets, the first prefix rows), append the chunk's rows s * chunk_len ... of k and v;
    # repeat each kv head for its group of num_heads // num_kv_heads query heads; fp32 scores
    # q k^T / sqrt(head_dim), -inf where the key's position is past prefix + i for query i;
    # softmax; times the values; write out[rows] in bf16.
    raise NotImplementedError
