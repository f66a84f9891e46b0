"""Where does one benchmark output check spend its time? (issue 5: a 1 GiB check takes 2.5 s)

    python3 bench/check_probe.py [--problem softmax] [--shape 8192x32768] [--device cuda] [--repeat 3]

Times, for one benchmark shape, each step a judge's output check goes through, with the judge's
own functions: in the child, the output's copy to the host (tensors.to_bytes); the results pipe
(a forked writer sends a frame of that size, as bench/pipe_probe.py does); in the parent,
generating the inputs, their checksums and the float64 reference (Judging.expected_for), the
copy back to the device (tensors.from_bytes) and the comparison (tensors.compare). Medians of
--repeat runs. --device cpu runs it on a small shape of the dev machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pipe_probe import transfer_seconds  # noqa: E402

from judge import spec as specmod  # noqa: E402
from judge.harness.judging import reference_module  # noqa: E402
from sandbox.pool import RESULTS_PIPE_BYTES  # noqa: E402


def timed(step: Callable[[], Any], sync: Callable[[], None]) -> tuple[float, Any]:
    sync()
    began = time.perf_counter()
    result = step()
    sync()
    return time.perf_counter() - began, result


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
    from judge.harness.tensors import nbytes

    size = nbytes(output.dtype, output.concrete_shape(sizes))
    # The pipe first: its writer is a forked process, which must not inherit a CUDA context.
    pipe = [transfer_seconds(size, RESULTS_PIPE_BYTES) for _ in range(args.repeat)]

    import torch

    from judge.harness.tensors import DTYPES, checksum, compare, from_bytes, to_bytes

    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    module = reference_module(spec)
    tol = spec.tolerance
    steps: dict[str, list[float]] = {"child: copy to host (to_bytes)": [], "results pipe": pipe}
    for name in ("parent: generate inputs", "parent: input checksums", "parent: float64 reference"):
        steps[name] = []
    steps["parent: copy to device (from_bytes)"] = []
    steps["parent: compare"] = []
    for run in range(args.repeat):
        seconds, inputs = timed(lambda: module.generate_inputs(seed=run + 1, device=args.device, **sizes), sync)
        steps["parent: generate inputs"].append(seconds)
        seconds, _ = timed(lambda: [checksum(inputs[t.name]) for t in spec.inputs], sync)
        steps["parent: input checksums"].append(seconds)
        seconds, expected = timed(lambda: module.reference(**inputs, **sizes)[output.name], sync)
        steps["parent: float64 reference"].append(seconds)
        got_device = expected.to(DTYPES[output.dtype])  # what a correct submission wrote
        del inputs
        seconds, blob = timed(lambda: to_bytes(got_device), sync)
        steps["child: copy to host (to_bytes)"].append(seconds)
        del got_device
        buffer = bytearray(blob)  # the parent receives the frame into a fresh bytearray
        del blob
        seconds, got = timed(lambda: from_bytes(buffer, output.dtype, tuple(expected.shape), args.device), sync)
        steps["parent: copy to device (from_bytes)"].append(seconds)
        seconds, result = timed(
            lambda: compare(
                expected,
                got,
                atol=tol.atol,
                rtol=tol.rtol,
                atol_rms=tol.atol_rms,
                rel_l2=tol.rel_l2,
                dtype_name=output.dtype,
            ),
            sync,
        )
        steps["parent: compare"].append(seconds)
        if not result.passed:
            print(f"the reference's own output failed its check: {result}", file=sys.stderr)
            return 1
        del expected, got, buffer

    gpu = torch.cuda.get_device_name(0) if args.device == "cuda" else "CPU"
    print(f"{spec.slug} {shape.name}: output {output.name} {size / 2**20:.0f} MiB, {gpu}, median of {args.repeat}")
    print("| step | median s | min s | max s |")
    print("| --- | --- | --- | --- |")
    total = 0.0
    for name, values in steps.items():
        median = statistics.median(values)
        total += median
        print(f"| {name} | {median:.3f} | {min(values):.3f} | {max(values):.3f} |")
    print(f"| sum of medians | {total:.3f} | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
