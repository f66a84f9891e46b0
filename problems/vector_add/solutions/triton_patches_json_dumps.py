"""Rejected (forged-timing): computes the right answer (the textbook
Triton kernel), then replaces json.dumps, which the
judge's framing in this process uses to encode every frame, with a wrapper that divides the time
fields by 1000. Nothing of the judge's own code is touched, only the standard library.

Against a judge that takes the child's reported times as the score, vector_add scored 1000 times
faster than the same kernel judged honestly. The judge's own clock around each timed call contradicts the claims.
"""

import json

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


FACTOR = 1000.0
_real_dumps = json.dumps


def _dumps(obj, *args, **kwargs):
    if isinstance(obj, dict):
        obj = dict(obj)
        for key in ("times_us", "warmup_us"):
            if isinstance(obj.get(key), list):
                obj[key] = [v / FACTOR for v in obj[key]]
        if isinstance(obj.get("us"), int | float):  # a call's report
            obj["us"] = obj["us"] / FACTOR
        elif isinstance(obj.get("us"), list):  # a batch's report
            obj["us"] = [v / FACTOR for v in obj["us"]]
    return _real_dumps(obj, *args, **kwargs)


json.dumps = _dumps


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    add_kernel[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
