"""An infinite-loop GPU kernel (Triton): the job must be killed at its limit and the GPU must
serve the next job normally."""

import sys

import torch
import triton
import triton.language as tl


@triton.jit
def spin(flag_ptr):
    x = tl.load(flag_ptr, volatile=True)
    while x == 0:
        x = tl.load(flag_ptr, volatile=True)
    tl.store(flag_ptr, x + 1)


flag = torch.zeros(1, dtype=torch.int32, device="cuda")
spin[(1,)](flag)
print("kernel launched, spinning", flush=True)
torch.cuda.synchronize()
print("unreachable: the kernel returned", flush=True)
sys.exit(0)
