"""Expert Triton solution for reduction: a deterministic two-pass sum (obeys the contract).

Pass 1 is persistent: a few programs per SM stride over whole 4096-element tiles without a mask
(so the loads are 16 bytes wide) and keep a 4096-lane fp32 accumulator each; the last program
also adds the ragged tail. Every lane sums only n / (programs * 4096) values, so the fp32 error
stays tiny. Pass 2 adds the per-program partials in a fixed order: the same input gives the same
bits on every run.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096
PROGRAMS_PER_SM = 4
_sm_count: dict[int, int] = {}


@triton.jit
def _partial_sums(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    full_tiles = n // BLOCK
    for tile in tl.range(pid, full_tiles, programs):
        offsets = tile * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offsets, cache_modifier=".cg")
    if pid == programs - 1:
        offsets = full_tiles * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _final_sum(partial_ptr, out_ptr, count, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    values = tl.load(partial_ptr + offsets, mask=offsets < count, other=0.0)
    tl.store(out_ptr, tl.sum(values, axis=0))


def _programs(x: torch.Tensor, n: int) -> int:
    if x.is_cuda:
        index = x.device.index if x.device.index is not None else torch.cuda.current_device()
        if index not in _sm_count:
            _sm_count[index] = torch.cuda.get_device_properties(index).multi_processor_count
        cap = _sm_count[index] * PROGRAMS_PER_SM
    else:
        cap = 4  # the CPU interpreter runs programs one after another
    return max(1, min(triton.cdiv(n, BLOCK), cap))


def solve(x: torch.Tensor, out: torch.Tensor, n: int) -> None:
    programs = _programs(x, n)
    partials = torch.empty(programs, dtype=torch.float32, device=x.device)
    _partial_sums[(programs,)](x, partials, n, BLOCK=BLOCK, num_warps=8)
    _final_sum[(1,)](partials, out, programs, BLOCK=triton.next_power_of_2(programs), num_warps=4)
