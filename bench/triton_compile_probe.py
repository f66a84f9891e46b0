"""How long does Triton take to compile a submission's kernels, one after the other or in threads?

    python3 bench/triton_compile_probe.py [--variants 8] [--threads 8]

A test run compiles one kernel per distinct specialization its cases reach (softmax's
triton_ok.py reaches about ten: one per power-of-two BLOCK_N). This times compiling N such
variants of that file's one-tile row kernel into an empty cache, serially and through Triton's
AsyncCompileMode with a thread pool, then loading them all from the warm on-disk cache (what a
second judging of unchanged kernels would pay). Needs a GPU (compiles for the local device).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SOLUTION = Path(__file__).resolve().parents[1] / "problems" / "softmax" / "solutions" / "triton_ok.py"


def fresh_kernel():
    """triton_ok.py's one-tile row kernel as a new JITFunction, so no in-memory cache carries over."""
    import triton

    spec = importlib.util.spec_from_file_location("softmax_triton_ok", SOLUTION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return triton.jit(module.softmax_row_kernel.fn)


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
