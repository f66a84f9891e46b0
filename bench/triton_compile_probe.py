"""How long does Triton take to compile a submission's kernels, one after the other or in threads?

    python3 bench/triton_compile_probe.py [--variants 8] [--threads 8]

A test run compiles one kernel per distinct specialization its cases reach (softmax's
triton_ok.py reaches about ten: one per power-of-two BLOCK_N). This times compiling N such
variants of a small softmax kernel into an empty cache, serially and through Triton's
AsyncCompileMode with a thread pool, then loading them all from the warm on-disk cache (what a
second judging of unchanged kernels would pay). Needs a GPU (compiles for the local device).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor


def fresh_kernel():  # a new JITFunction each time, so no in-memory cache carries over
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_rows(x_ptr, y_ptr, n, BLOCK_N: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_N)
        mask = cols < n
        x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + row * n + cols, e / tl.sum(e, axis=0), mask=mask)

    return softmax_rows


def compile_all(blocks: list[int], threads: int) -> float:
    import torch
    from triton.runtime._async_compile import AsyncCompileMode

    kernel = fresh_kernel()
    x = torch.empty(16, device="cuda")
    began = time.perf_counter()
    if threads <= 1:
        for b in blocks:
            kernel.warmup(x, x, 7, BLOCK_N=b, grid=(1,))
    else:
        with ThreadPoolExecutor(threads) as pool, AsyncCompileMode(pool):
            for b in blocks:
                kernel.warmup(x, x, 7, BLOCK_N=b, grid=(1,))
    torch.cuda.synchronize()
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variants", type=int, default=8)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    blocks = [2**k for k in range(1, args.variants + 1)]
    rows = []
    with tempfile.TemporaryDirectory() as cache:  # the first compile in a process pays one-time set-up
        from triton import knobs

        knobs.cache.dir = cache
        compile_all([2 ** (args.variants + 2)], 1)
    for arm, threads in (("serial", 1), (f"{args.threads} threads", args.threads)):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TRITON_CACHE_DIR"] = cache
            from triton import knobs

            knobs.cache.dir = cache
            cold = compile_all(blocks, threads)
            warm = compile_all(blocks, 1)  # new JITFunction, same disk cache
        rows.append((arm, cold, warm))
    print(f"{len(blocks)} variants (BLOCK_N {blocks[0]}..{blocks[-1]}), {os.cpu_count()} CPUs")
    print("| arm | empty cache | warm disk cache |")
    print("| --- | --- | --- |")
    for arm, cold, warm in rows:
        print(f"| {arm} | {cold:.2f} s ({cold / len(blocks) * 1000:.0f} ms each) | {warm * 1000:.0f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
