"""Rejected (forged-timing): computes the right answer (the textbook
Triton kernel), then divides every time its own process
reports by 1000, by setting an attribute on the judge's object in that process: the runner's
channel gets a `send` that rescales the time fields of each frame before writing it.

Against a judge that takes the child's reported times as the score, vector_add scored 1000 times
faster than the same kernel judged honestly. The judge's own clock around each timed call contradicts the claims.
"""

import dataclasses
import gc

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
TIME_FIELDS = ("times_us", "warmup_us")


def _scaled(frame):
    changes = {}
    for key in TIME_FIELDS:
        if isinstance(getattr(frame, key, None), list):
            changes[key] = [v / FACTOR for v in getattr(frame, key)]
    us = getattr(frame, "us", None)
    if isinstance(us, int | float):  # a per-call report
        changes["us"] = us / FACTOR
    elif isinstance(us, list):  # a batch's report
        changes["us"] = [v / FACTOR for v in us]
    return dataclasses.replace(frame, **changes) if changes else frame


def _patch_channel() -> bool:
    for obj in gc.get_objects():
        if type(obj).__name__ != "Runner":
            continue
        channel = getattr(obj, "channel", None)
        if channel is not None and callable(getattr(channel, "send", None)):
            real = channel.send

            def send(frame, blob=None, _real=real):
                return _real(_scaled(frame) if dataclasses.is_dataclass(frame) else frame, blob)

            channel.send = send
            return True
    return False


PATCHED = _patch_channel()


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    add_kernel[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
