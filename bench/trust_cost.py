"""What the parent's own checks cost per call (docs/judging.md, "The trust boundary").

Where the parent owns the memory (CPU hosts), every call costs the parent, outside the call's
timed window: generating the call's inputs and their float64 reference, writing the inputs into
the shared region and poisoning the outputs (before "go"), then comparing the inputs with its
copy, copying the outputs out and checking them (after "called"). This times each step with the
parent's own code (parent/memory.py, the problems' reference.py) on each problem's CPU benchmark
shapes, and judges one honest file in benchmark mode to report the handshake the parent's clock
calibrates (the wall and CPU time one go/called round trip adds).

    python3 bench/trust_cost.py [--problems vector_add matmul] [--repeats 20] [--no-judge]

With --device cuda the same steps run on device tensors (the checks a GPU parent would make on
memory it shares through CUDA IPC), on the problems' GPU benchmark shapes.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def ms(samples: list[float]) -> str:
    """Median / min in ms: on a shared host the minimum is the cost on a free core."""
    return f"{statistics.median(samples) * 1e3:.2f} / {min(samples) * 1e3:.2f}"


def time_steps(slug: str, repeats: int, device: str) -> list[list[str]]:
    import torch

    from judge import spec as specmod
    from judge.harness.common.tensors import DTYPES, compare_within, poison_
    from judge.harness.parent.memory import ParentMemory, TensorSpec
    from judge.harness.parent.references import reference_module

    spec = specmod.load(slug)
    module = reference_module(spec)
    rows = []
    shapes = spec.cpu_benchmarks if device == "cpu" else spec.benchmarks
    for case in shapes:
        sizes = dict(case.sizes)
        shape_of = {t.name: t.concrete_shape(sizes) for t in spec.inputs + spec.outputs}
        parent_end, child_end = socket.socketpair()
        memory = ParentMemory(
            parent_end,
            [TensorSpec(t.name, t.dtype) for t in spec.inputs],
            [TensorSpec(t.name, t.dtype) for t in spec.outputs],
        )
        generate, reference, stage, check = [], [], [], []
        for i in range(repeats):
            t0 = time.perf_counter()
            values = module.generate_inputs(seed=1000 + i, device=device, **sizes)
            t1 = time.perf_counter()
            expected = module.reference(**values, **sizes)
            t2 = time.perf_counter()
            if device == "cpu":
                memory.stage("bench", values, shape_of)
                region = memory.regions["bench"].views
                outputs = {t.name: region[t.name] for t in spec.outputs}
            else:
                outputs = {
                    t.name: torch.empty(shape_of[t.name], dtype=DTYPES[t.dtype], device=device) for t in spec.outputs
                }
                for t in spec.outputs:
                    poison_(outputs[t.name], t.dtype)
            for t in spec.outputs:  # stands for the call: the right answer in the outputs
                outputs[t.name].copy_(expected[t.name].to(outputs[t.name].dtype))
            if device == "cuda":
                torch.cuda.synchronize()
            t3 = time.perf_counter()
            if device == "cpu":
                memory.modified_inputs("bench")
                got = memory.snapshot("bench")
            else:
                got = {k: v.clone() for k, v in outputs.items()}
            for t in spec.outputs:
                if got[t.name].is_floating_point():  # the unwritten-output count of a timed call
                    int(torch.isnan(got[t.name]).sum())
                result = compare_within(expected[t.name], got[t.name], spec.tolerance, t.dtype)
                assert result.passed, (slug, case.name, result.reason)
            if device == "cuda":
                torch.cuda.synchronize()
            t4 = time.perf_counter()
            if i:  # the first repeat pays one-time costs (the region, first touches)
                generate.append(t1 - t0)
                reference.append(t2 - t1)
                stage.append(t3 - t2)
                check.append(t4 - t3)
        memory.close()
        parent_end.close()
        child_end.close()
        total = [a + b + c + d for a, b, c, d in zip(generate, reference, stage, check, strict=True)]
        rows.append([slug, case.name, ms(generate), ms(reference), ms(stage), ms(check), ms(total)])
    return rows


def judge_once(slug: str) -> dict[str, Any]:
    from judge.harness import judge_job
    from judge.harness.parent.config import JudgeConfig
    from judge.protocol import JudgeJob

    source = (ROOT / "problems" / slug / "solutions" / "pytorch_ok.py").read_text()
    job = JudgeJob(
        submission_id="trust-cost", attempt=1, problem=slug, language="pytorch", source=source, mode="benchmark"
    )
    began = time.monotonic()
    report = judge_job(job, config=JudgeConfig(device="cpu"))
    clock = report.system.get("parent_clock", {})
    return {"verdict": report.verdict, "seconds": time.monotonic() - began, "clock": clock}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", nargs="*", default=["vector_add", "reduction", "softmax", "matmul"])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--no-judge", action="store_true", help="skip judging pytorch_ok.py (the handshake)")
    args = parser.parse_args()
    rows = []
    for slug in args.problems:
        rows += time_steps(slug, args.repeats, args.device)
    head = ["problem", "shape", "inputs ms", "reference ms", "write+poison+call ms", "read+check ms", "per call ms"]
    print("(each: median / min over the repeats)")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, ["-" * w for w in widths], *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)))
    if args.device == "cpu" and not args.no_judge:
        print()
        for slug in args.problems:
            found = judge_once(slug)
            cal = found["clock"].get("calibration", {})
            print(
                f"{slug}: pytorch_ok.py {found['verdict']} in {found['seconds']:.1f} s; handshake calibrated at "
                f"{cal.get('wall_gap_us')} us wall (p10 {cal.get('wall_p10_us')}, p90 {cal.get('wall_p90_us')}), "
                f"{cal.get('cpu_gap_us')} us CPU (p10 {cal.get('cpu_p10_us')}, p90 {cal.get('cpu_p90_us')})"
            )
            for name, figures in found["clock"].items():
                if name != "calibration":
                    print(
                        f"    {name}: claimed {figures['claimed_us']} us, span {figures['span_us']} us, wall excess "
                        f"{figures['wall_excess_us']} (allowed {figures['wall_allowed_us']}), cpu excess "
                        f"{figures.get('cpu_excess_us')} (allowed {figures.get('cpu_allowed_us')})"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
