"""Rejected (forged-timing), or judged at its honest time: computes the right answer, then
divides by 1000 every time its own process reports, by setting an attribute on the judge's object in that
process (the runner's channel gets a `send` that rescales the time fields of each frame it is given).

Against a judge that takes the child's times, this scored 1000 times faster. Here the judge's
own clock bounds every batch of timed calls: claims it contradicts beyond the allowance are not
taken, and the shape is scored at the time the judge's clock saw (or, when the contradiction is
gross, the submission is rejected).
"""

import dataclasses
import gc

import torch

FACTOR = 1000.0


def _scaled(frame):
    changes = {}
    for key in ("times_us", "warmup_us"):
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
        if type(obj).__name__ == "Runner" and callable(getattr(getattr(obj, "channel", None), "send", None)):
            real = obj.channel.send

            def send(frame, blob=None, _real=real):
                return _real(_scaled(frame) if dataclasses.is_dataclass(frame) else frame, blob)

            obj.channel.send = send
            return True
    return False


PATCHED = _patch_channel()


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    torch.add(a, b, out=c)
