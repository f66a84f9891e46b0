"""Rejected (hidden-work), or judged at its honest time: returns before the work is done. The
first call on each output buffer is computed in place (so the checked calls pass); later calls
hand the add to a thread and return at once, so the time measured in its own process is the
thread's start-up only. The output is complete a moment later, long before anything reads it
from that process.

Against a judge that reads outputs through the child after the timing, this was accepted at a
fraction of the honest time. The judge reads the outputs from its own memory the moment a batch
of timed calls is reported done (an output still unwritten then is hidden-work), and its own
clock counts the whole batch, the threads' work included.
"""

import threading

import torch

_seen: set[int] = set()


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    key = c.data_ptr()
    if key not in _seen or n < 65536:
        _seen.add(key)
        torch.add(a, b, out=c)
        return
    threading.Thread(target=torch.add, args=(a, b), kwargs={"out": c}).start()
