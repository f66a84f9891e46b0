"""What does checking a benchmark input between two calls cost? (docs/judging.md section 4)

    python3 bench/input_check_probe.py [--mib 256] [--device cpu|cuda] [--repeat 5]

Times, on one fp32 input of --mib MiB, the two ways the judge's child checks that solve() left an
input alone: tensors.checksum (whole, position-sensitive; used on each set's last call and on
the checked calls) and tensors.InputSample taken and compared (2^20 random positions; used
between the benchmark calls on one input set). Medians and ranges of --repeat runs, device
synchronized around each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from judge.harness.common.tensors import InputSample, checksum


def seconds(work: Callable[[], object], sync: Callable[[], None], repeat: int) -> list[float]:
    work()  # first call: allocator and kernels warmed
    times = []
    for _ in range(repeat):
        sync()
        began = time.perf_counter()
        work()
        sync()
        times.append(time.perf_counter() - began)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    x = torch.randn(args.mib << 18, device=args.device)  # fp32: 2^18 elements per MiB
    generator = torch.Generator(device=args.device)
    generator.manual_seed(1)
    rows = {
        "checksum (whole input)": seconds(lambda: checksum(x), sync, args.repeat),
        "InputSample take + compare": seconds(lambda: InputSample.take(x, generator).unchanged(x), sync, args.repeat),
    }
    print(f"{args.mib} MiB fp32 input on {args.device}, {args.repeat} runs each")
    print("| check | median ms | range ms |")
    print("| --- | --- | --- |")
    for name, times in rows.items():
        print(f"| {name} | {statistics.median(times) * 1e3:.1f} | {min(times) * 1e3:.1f}-{max(times) * 1e3:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
