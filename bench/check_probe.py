"""Where does one benchmark output check spend its time? (issue 5: a 1 GiB check takes 2.5 s)

    python3 bench/check_probe.py [--problem softmax] [--shape 8192x32768] [--device cuda] [--repeat 3]

Times, for one benchmark shape, each step a judge's output check goes through, with the judge's
own functions: in the child, the output's copy to the host (tensors.to_bytes); the results pipe
(a forked writer sends a frame of that size, as bench/pipe_probe.py does); in the parent,
generating the inputs, their checksums and the float64 reference (Judging.expected_for), the
copy back to the device (tensors.from_bytes) and the comparison (tensors.compare_within). Medians of
--repeat runs. --device cpu runs it on a small shape of the dev machine.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pipe_probe import transfer_seconds

from judge import spec as specmod
from judge.harness.parent.references import reference_module
from sandbox.pool import RESULTS_PIPE_BYTES


class Stopwatch:
    """Adds each `with watch.step(name):` block's seconds to watch.seconds[name] (device synced)."""

    def __init__(self, sync: Callable[[], None]) -> None:
        self.sync = sync
        self.seconds: dict[str, list[float]] = {}

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        self.sync()
        began = time.perf_counter()
        yield
        self.sync()
        self.seconds.setdefault(name, []).append(time.perf_counter() - began)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--problem", default="softmax")
    parser.add_argument("--shape", help="benchmark name (default: the largest)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spec = specmod.load(args.problem)
    shapes = spec.benchmarks if args.device == "cuda" else spec.cpu_benchmarks
    if args.shape:  # any of the problem's shapes, also a GPU one on the CPU
        shape = next(s for s in [*spec.benchmarks, *spec.cpu_benchmarks] if s.name == args.shape)
    else:
        shape = shapes[-1]
    sizes = dict(shape.sizes)
    output = spec.outputs[0]
    from judge.harness.common.tensors import nbytes

    size = nbytes(output.dtype, output.concrete_shape(sizes))
    # The pipe first: its writer is a forked process, which must not inherit a CUDA context.
    pipe = [transfer_seconds(size, RESULTS_PIPE_BYTES) for _ in range(args.repeat)]

    import torch

    from judge.harness.common.tensors import DTYPES, checksum, compare_within, from_bytes, to_bytes

    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    module = reference_module(spec)
    tol = spec.tolerance
    watch = Stopwatch(sync)
    watch.seconds["results pipe"] = pipe
    for run in range(args.repeat):
        with watch.step("parent: generate inputs"):
            inputs = module.generate_inputs(seed=run + 1, device=args.device, **sizes)
        with watch.step("parent: input checksums"):
            [checksum(inputs[t.name]) for t in spec.inputs]
        with watch.step("parent: float64 reference"):
            expected = module.reference(**inputs, **sizes)[output.name]
        del inputs
        written = expected.to(DTYPES[output.dtype])  # what a correct submission wrote
        with watch.step("child: copy to host (to_bytes)"):
            blob = to_bytes(written)
        del written
        buffer = bytearray(blob)  # the parent receives the frame into a fresh bytearray
        del blob
        with watch.step("parent: copy to device (from_bytes)"):
            got = from_bytes(buffer, output.dtype, tuple(expected.shape), args.device)
        with watch.step("parent: compare"):
            result = compare_within(expected, got, tol, output.dtype)
        if not result.passed:
            print(f"the reference's own output failed its check: {result}", file=sys.stderr)
            return 1
        del expected, got, buffer

    gpu = torch.cuda.get_device_name(0) if args.device == "cuda" else "CPU"
    print(f"{spec.slug} {shape.name}: output {output.name} {size / 2**20:.0f} MiB, {gpu}, median of {args.repeat}")
    print("| step | median s | min s | max s |")
    print("| --- | --- | --- | --- |")
    total = 0.0
    for name, values in watch.seconds.items():
        median = statistics.median(values)
        total += median
        print(f"| {name} | {median:.3f} | {min(values):.3f} | {max(values):.3f} |")
    print(f"| sum of medians | {total:.3f} | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
