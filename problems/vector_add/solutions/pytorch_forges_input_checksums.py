"""Rejected (inputs-modified): adds in place into the input `a` (c = a += b), then hides it. It
turns the judge's own in-process input check off (an instance attribute on the runner) and
rewrites the input checksums its process reports, recomputing them from freshly generated
inputs: that process holds each case's seed and the input generator.

Against a judge that compares checksums the child computes, this was accepted. The judge reads
the inputs back from its own memory.
"""

import dataclasses
import gc
import sys

import torch


def _find_runner():
    for obj in gc.get_objects():
        if type(obj).__name__ == "Runner":
            return obj
    return None


def _forge(runner) -> None:
    module = sys.modules[type(runner).__module__]
    checksum = getattr(module, "checksum", None)
    runner.check_inputs_unchanged = lambda *args, **kwargs: None
    runner.check_inputs_sampled = lambda *args, **kwargs: None
    real = runner.channel.send

    def send(frame, blob=None):
        if getattr(frame, "kind", None) == "checked" and frame.case is not None and checksum:
            case = runner.job.cases[frame.case]
            fresh = runner.make_inputs(case.seed, case.sizes, case.shapes)
            frame = dataclasses.replace(frame, checksums=[checksum(t) for t in fresh])
        return real(frame, blob)

    runner.channel.send = send


RUNNER = _find_runner()
if RUNNER is not None:
    _forge(RUNNER)


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    a.add_(b)
    c.copy_(a)
