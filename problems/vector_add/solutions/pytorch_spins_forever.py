"""Time limit: never returns (a busy loop that also ignores KeyboardInterrupt and SIGTERM-style
exceptions), so only killing the process tree ends it."""

import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    torch.add(a, b, out=c)
    spins = 0
    while True:
        try:
            spins += 1
        except BaseException:  # noqa: BLE001 - keep spinning whatever is raised into us
            continue
