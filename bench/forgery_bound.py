"""How much could a forger shave off its score before the parent's clock sees it? (H200; issue 14)

For each problem with an expert Triton kernel and each benchmark shape, a child process times the
expert kernel as the judge does (fresh input set per call, the child's L2 flush, CUDA events
around solve(), then a synchronize), one call per go/done handshake with the parent, and reports
its event times; the parent keeps its own span per call (host monotonic clock, "wall") and, with
--gate, its own CUDA-event bound through GPU memory flags (bench/trust_probe.py's "gate"). The
handshake is calibrated per shape with a judge kernel that spins for the shape's honest median
(torch.cuda._sleep) through the same loop, as the judge would before the submission is imported.

A forger does the same work and reports its times divided by f. Its spans are the honest spans,
so for f in 1.01, 1.02, 1.05, 1.1, 2, 1000 the rule is applied to (honest spans, claims / f):

    excess = p25(span - claim / f) - median(calibration gap)   caught when excess > allowance
    allowance = the calibration's p10-p90 spread of the gap (no absolute floor)

and the table says per shape which factors are caught and the most a forger could shave unseen
(1 - 1/f for the largest factor not caught). Also "batch": the same with one go/done around 20
calls (the gap per call is the batch's, shared by its calls).

    python3 bench/forgery_bound.py --out $OUT/forgery.json [--problems vector_add softmax] [--calls 60] [--gate]

Standard library, torch, triton; judge/spec.py for the problems' interfaces; nothing of
judge/harness.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1] if "__file__" in globals() else Path.cwd()
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from trust_probe import check, driver, export, open_shared, recv, send  # noqa: E402

FACTORS = (1.01, 1.02, 1.05, 1.1, 2.0, 1000.0)
SETS = 4
BATCH = 20


def _load(path: Path, name: str) -> Any:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------
# The child: times the expert kernel (or the judge's spin) per go.


def child_main(in_fd: int, out_fd: int) -> None:
    import torch

    from judge import spec as specmod

    torch.cuda.init()
    torch.empty(1, device="cuda")  # the context, current before the driver's IPC calls
    lib = driver()
    setup = recv(in_fd)
    flags = open_shared(lib, torch, setup["flags"], "<i4")
    flag_ptr = flags.data_ptr()
    stream = torch.cuda.current_stream().cuda_stream
    props = torch.cuda.get_device_properties(0)
    flush_buf = torch.ones(2 * props.L2_cache_size // 8, dtype=torch.int64, device="cuda")
    flush_out = torch.empty((), dtype=torch.int64, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    rates = []
    for _ in range(5):
        start.record()
        torch.cuda._sleep(1_000_000)
        end.record()
        end.synchronize()
        rates.append(1_000_000 / (start.elapsed_time(end) * 1000.0))
    cycles_per_us = statistics.median(rates)
    send(out_fd, {"kind": "ready"})
    calls: list[Any] = []
    n_call = 0
    scratch: Any = None
    copy_dst: Any = None
    copy_src: Any = None

    def timed(fn: Any) -> float:
        torch.sum(flush_buf, dim=0, out=flush_out)
        start.record()
        fn()
        end.record()
        end.synchronize()
        torch.cuda.synchronize()
        return start.elapsed_time(end) * 1000.0

    while True:
        msg = recv(in_fd)
        kind = msg["kind"]
        if kind == "quit":
            return
        if kind == "shape":  # load the problem's expert and make SETS input sets
            spec = specmod.load(msg["problem"])
            ref = _load(ROOT / "reference_kernels" / spec.slug / "reference.py", f"ref_{spec.slug}")
            expert = _load(ROOT / "reference_kernels" / spec.slug / "expert_triton.py", f"expert_{spec.slug}")
            sizes = msg["sizes"]
            calls = []
            for k in range(SETS):
                made = ref.generate_inputs(seed=100 + k, device="cuda", **sizes)
                outs = {
                    t.name: torch.empty(t.concrete_shape(sizes), dtype=getattr(torch, t.dtype), device="cuda")
                    for t in spec.outputs
                }
                args = [made[t.name] for t in spec.inputs] + [outs[t.name] for t in spec.outputs]
                args += [sizes[s] for s in spec.sizes]
                calls.append(lambda args=args, solve=expert.solve: solve(*args))
            out_bytes = sum(t.nbytes(sizes) for t in spec.outputs)
            scratch = torch.empty(max(out_bytes, 1), dtype=torch.uint8, device="cuda")
            in_bytes = sum(t.nbytes(sizes) for t in spec.inputs)
            scratch_in = torch.ones(max(in_bytes, 1), dtype=torch.uint8, device="cuda")
            both = min(scratch.numel(), scratch_in.numel())
            copy_dst, copy_src = scratch[:both], scratch_in[:both]
            for i in range(10):  # compile and autotune outside the measurement
                timed(calls[i % SETS])
            send(out_fd, {"kind": "loaded"})
        elif kind == "go":
            us = msg.get("spin_us")
            fns = [calls[(n_call + i) % SETS] for i in range(msg.get("n", 1))] if us is None else None
            if fns is None:
                cycles = int(us * cycles_per_us)
                fns = [lambda cycles=cycles: torch.cuda._sleep(cycles)] * msg.get("n", 1)
            n_call += len(fns)
            send(out_fd, {"kind": "done", "times": [timed(fn) for fn in fns]})
        elif kind == "gate":
            n = msg["seq"]
            us = msg.get("spin_us")
            if us is None:
                fn = calls[n_call % SETS]
            else:
                cycles = int(us * cycles_per_us)
                fill = scratch if msg.get("fill") else None
                pair = (copy_dst, copy_src) if msg.get("copy") else None

                def fn(cycles: int = cycles, fill: Any = fill, pair: Any = pair) -> None:
                    if fill is not None:  # the judge's call writes as many bytes as the outputs
                        fill.fill_(1)
                    if pair is not None:  # ... or streams the inputs' bytes into the outputs'
                        pair[0].copy_(pair[1])
                    if cycles:
                        torch.cuda._sleep(cycles)

            n_call += 1
            torch.sum(flush_buf, dim=0, out=flush_out)
            check(lib.cuStreamWaitValue32_v2(stream, flag_ptr, n, 0), "cuStreamWaitValue32")
            start.record()
            fn()
            end.record()
            # 1 = CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER: no fence before the done flag
            check(
                lib.cuStreamWriteValue32_v2(stream, flag_ptr + 4, n, msg.get("write_flags", 0)), "cuStreamWriteValue32"
            )
            send(out_fd, {"kind": "queued"})
            end.synchronize()
            torch.cuda.synchronize()
            send(out_fd, {"kind": "done", "times": [start.elapsed_time(end) * 1000.0]})


# ---------------------------------------------------------------------------------------------
# The parent.


class Parent:
    def __init__(self) -> None:
        import torch

        self.torch = torch
        torch.cuda.init()
        self.lib = driver()
        self.flags = torch.zeros(64, dtype=torch.int32, device="cuda")
        torch.cuda.synchronize()
        self.seq = 0
        job_r, job_w = os.pipe()
        res_r, res_w = os.pipe()
        source = Path(__file__).read_text(encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'bench'}", "CUDA_DEVICE_MAX_CONNECTIONS": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", source, "--child", str(job_r), str(res_w)],
            pass_fds=(job_r, res_w),
            env=env,
            cwd=ROOT,
        )
        os.close(job_r)
        os.close(res_w)
        self.to_child, self.from_child = job_w, res_r
        send(self.to_child, {"flags": export(self.lib, self.flags)})
        assert recv(self.from_child)["kind"] == "ready"

    def load(self, problem: str, sizes: dict[str, int]) -> None:
        send(self.to_child, {"kind": "shape", "problem": problem, "sizes": sizes})
        assert recv(self.from_child)["kind"] == "loaded"

    def wall(self, calls: int, n: int = 1, spin_us: float | None = None) -> list[tuple[float, float]]:
        """(span per call, claim per call) for `calls` handshakes of n calls each."""
        out = []
        for _ in range(calls):
            t0 = time.monotonic_ns()
            send(self.to_child, {"kind": "go", "n": n, "spin_us": spin_us})
            done = recv(self.from_child)
            span = (time.monotonic_ns() - t0) / 1000.0
            out.append((span / n, sum(done["times"]) / n))
        return out

    def gate(
        self, calls: int, spin_us: float | None = None, fill: bool = False, write_flags: int = 0, copy: bool = False
    ) -> list[tuple[float, float]]:
        torch = self.torch
        stream = torch.cuda.current_stream().cuda_stream
        ptr = self.flags.data_ptr()
        t1, t2 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        out = []
        for _ in range(calls):
            self.seq += 1
            send(
                self.to_child,
                {
                    "kind": "gate",
                    "seq": self.seq,
                    "spin_us": spin_us,
                    "fill": fill,
                    "write_flags": write_flags,
                    "copy": copy,
                },
            )
            assert recv(self.from_child)["kind"] == "queued"
            t1.record()
            check(self.lib.cuStreamWriteValue32_v2(stream, ptr, self.seq, 0), "cuStreamWriteValue32")
            check(self.lib.cuStreamWaitValue32_v2(stream, ptr + 4, self.seq, 0), "cuStreamWaitValue32")
            t2.record()
            t2.synchronize()
            done = recv(self.from_child)
            out.append((t1.elapsed_time(t2) * 1000.0, done["times"][0]))
        return out

    def close(self) -> None:
        send(self.to_child, {"kind": "quit"})
        self.proc.wait()


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def verdicts(honest: list[tuple[float, float]], calib: list[tuple[float, float]]) -> dict[str, Any]:
    cal_gaps = [s - c for s, c in calib]
    cal_median = statistics.median(cal_gaps)
    allowance = quantile(cal_gaps, 0.9) - quantile(cal_gaps, 0.1)
    result: dict[str, Any] = {
        "honest_median_us": round(statistics.median(c for _, c in honest), 2),
        "gap_median_us": round(statistics.median(s - c for s, c in honest), 2),
        "cal_gap_us": round(cal_median, 2),
        "allowance_us": round(allowance, 2),
        "caught": {},
    }
    for f in (1.0, *FACTORS):
        excess = quantile([s - c / f for s, c in honest], 0.25) - cal_median
        result["caught"][str(f)] = excess > allowance
    uncaught = [f for f in FACTORS if not result["caught"][str(f)]]
    result["shave_unseen_pct"] = round(100 * (1 - 1 / max(uncaught)), 1) if uncaught else 0.0
    return result


def calibration_row(parent: Parent, slug: str, shape: str, calls: int) -> dict[str, Any]:
    """Median gate gap (us) of the honest kernel and of judge calls, fenced and not."""

    def gap(samples: list[tuple[float, float]]) -> float:
        return round(statistics.median(s - c for s, c in samples), 2)

    honest = parent.gate(calls)
    median = statistics.median(c for _, c in honest)
    row: dict[str, Any] = {"problem": slug, "shape": shape, "honest_us": round(median, 1), "honest": gap(honest)}
    row["spin"] = gap(parent.gate(calls, spin_us=median))
    row["fill+spin"] = gap(parent.gate(calls, spin_us=median, fill=True))
    row["fill"] = gap(parent.gate(calls, spin_us=0.0, fill=True))
    row["copy+spin"] = gap(parent.gate(calls, spin_us=median, copy=True))
    row["copy"] = gap(parent.gate(calls, spin_us=0.0, copy=True))
    row["honest_again"] = gap(parent.gate(calls))  # drift over the row's own minute
    return row


def main() -> int:
    if len(sys.argv) >= 4 and sys.argv[1] == "--child":
        child_main(int(sys.argv[2]), int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="")
    parser.add_argument(
        "--problems", nargs="*", default=["vector_add", "reduction", "softmax", "matmul", "paged_attention"]
    )
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--gate", action="store_true")
    parser.add_argument(
        "--calibrations",
        action="store_true",
        help="gate only: the honest kernel's gap against judge calls (a spin; a fill of the outputs' bytes, "
        "then a spin or not; a copy of the inputs' bytes into the outputs', then a spin or not)",
    )
    args = parser.parse_args()
    from judge import spec as specmod

    began = time.monotonic()
    parent = Parent()
    rows = []
    try:
        for slug in args.problems:
            spec = specmod.load(slug)
            for case in spec.benchmarks:
                parent.load(slug, dict(case.sizes))
                if args.calibrations:
                    rows.append(calibration_row(parent, slug, case.name, args.calls))
                    print(json.dumps(rows[-1]), flush=True)
                    if args.out:
                        Path(args.out).write_text(json.dumps(rows, indent=1))
                    continue
                honest = parent.wall(args.calls)
                median = statistics.median(c for _, c in honest)
                calib = parent.wall(args.calls, spin_us=median)
                row = {"problem": slug, "shape": case.name, "wall": verdicts(honest, calib)}
                batches = max(3, args.calls // BATCH)
                row["batch"] = verdicts(parent.wall(batches, n=BATCH), parent.wall(batches, n=BATCH, spin_us=median))
                if args.gate:
                    try:
                        row["gate"] = verdicts(parent.gate(args.calls), parent.gate(args.calls, spin_us=median))
                    except Exception as exc:  # the gate is a candidate; its failure is a finding
                        row["gate"] = {"error": f"{type(exc).__name__}: {exc}"}
                rows.append(row)
                if args.out:  # after every shape: a run cut short keeps what it measured
                    Path(args.out).write_text(json.dumps(rows, indent=1))
                print(f"  {slug} {case.name}: done at {time.monotonic() - began:.0f} s", flush=True)
                print_rows([row])
    finally:
        parent.close()
    if args.calibrations:
        keys = ["honest", "spin", "fill+spin", "fill", "copy+spin", "copy", "honest_again"]
        print("\nmedian gate gap (us) per call: the honest kernel against the judge's calibration calls")
        print(f"{'problem':<16} {'shape':<15} {'honest us':>10} " + " ".join(f"{k:>18}" for k in keys))
        for row in rows:
            print(
                f"{row['problem']:<16} {row['shape']:<15} {row['honest_us']:>10} "
                + " ".join(f"{row[k]:>18}" for k in keys)
            )
        return 0
    print("\nforger caught? per factor f (claims = honest / f); shave = most shaved unseen")
    print_rows(rows)
    return 0


def print_rows(rows: list[dict[str, Any]]) -> None:
    print(
        f"{'problem':<16} {'shape':<12} {'cand':<6} {'honest us':>10} {'gap':>8} {'cal gap':>8} {'allow':>8}  "
        + " ".join(f"{f:>6}" for f in FACTORS)
        + "  shave"
    )
    for row in rows:
        for cand in ("wall", "batch", "gate"):
            v = row.get(cand)
            if v is None:
                continue
            if "error" in v:
                print(f"{row['problem']:<16} {row['shape']:<12} {cand:<6} error: {v['error'][:80]}")
                continue
            marks = " ".join(f"{'yes' if v['caught'][str(f)] else 'no':>6}" for f in FACTORS)
            honest_flag = " HONEST FLAGGED" if v["caught"]["1.0"] else ""
            print(
                f"{row['problem']:<16} {row['shape']:<12} {cand:<6} {v['honest_median_us']:>10.1f} {v['gap_median_us']:>8.1f} "
                f"{v['cal_gap_us']:>8.1f} {v['allowance_us']:>8.1f}  {marks}  {v['shave_unseen_pct']}%{honest_flag}",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
