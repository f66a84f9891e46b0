"""How tightly can the trusted parent bound a child's GPU timing? (docs/judging.md, "The trust boundary")

A parent process allocates the input and output buffers itself, shares them with a child
through CUDA IPC (the driver's cuIpcGetMemHandle: no /dev/shm, so it also works where the
child's /dev/shm is private, as in the sandbox), and times the child's calls from outside.
The child runs a kernel of known length (torch.cuda._sleep for the wanted microseconds, then
y = x + 1 on 1 MiB of the shared input) and reports its own CUDA-event time. Per kernel length
(10, 50, 200, 2000 us), the probe measures the gap between what the parent can bound and what
the child's events say, for these candidates:

  wall         the parent's monotonic clock from writing "go" to reading "done" (per call)
  wall+flush   the same with the parent's own L2 flush (a 2x-L2 read in the parent's context)
               just before "go"
  batch        one go/done around N calls; gap per call = (span - sum of child times) / N
  gate         the parent's own CUDA events around the child's work, ordered through GPU
               memory: the child's stream waits (cuStreamWaitValue32) on a flag in parent-
               owned memory that the parent's stream writes after its start event and after
               copying the call's fresh inputs; the child's stream writes a done flag after
               its end event, which the parent's stream waits for before its end event. A
               child that does not wait computes on stale inputs (the parent's output check
               sees it); the bound is the parent's GPU clock, not its host clock.

Each candidate prints median, p10 and p90 of the per-call gap (us) and the child's own median.
Run plainly, then with --sandbox (the child in the project's sandbox: new PID, IPC and mount
namespaces, uid 65534; does CUDA IPC work across them?), and with MPS running (--label mps).

    python3 bench/trust_probe.py --out /tmp/trust.json [--sandbox] [--label mps] [--calls 60]

Only the standard library and torch (plus sandbox/ with --sandbox); nothing of judge/harness.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import struct
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

# The child runs this file's source with -c, where __file__ does not exist.
ROOT = Path(__file__).resolve().parents[1] if "__file__" in globals() else Path.cwd()
KERNEL_US = (10.0, 50.0, 200.0, 2000.0)
WORK_ELEMENTS = 1 << 18  # 1 MiB of float32 read and written per call (y = x + 1)
_LEN = struct.Struct(">I")


# ---------------------------------------------------------------------------------------------
# Messages: 4-byte length + JSON, on raw fds (as small as a handshake gets in Python).


def send(fd: int, obj: dict[str, Any]) -> None:
    data = json.dumps(obj, separators=(",", ":")).encode()
    os.write(fd, _LEN.pack(len(data)) + data)


def _read_exact(fd: int, size: int) -> bytes:
    buf = b""
    while len(buf) < size:
        part = os.read(fd, size - len(buf))
        if not part:
            raise EOFError("peer closed")
        buf += part
    return buf


def recv(fd: int) -> dict[str, Any]:
    (size,) = _LEN.unpack(_read_exact(fd, _LEN.size))
    return json.loads(_read_exact(fd, size))


# ---------------------------------------------------------------------------------------------
# The CUDA driver through ctypes: IPC of device memory and stream memory operations.


class _IpcMemHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * 64)]


def driver() -> Any:
    lib = ctypes.CDLL("libcuda.so.1")
    lib.cuMemGetAddressRange_v2.argtypes = [
        ctypes.POINTER(ctypes.c_uint64),
        ctypes.POINTER(ctypes.c_size_t),
        ctypes.c_uint64,
    ]
    lib.cuIpcGetMemHandle.argtypes = [ctypes.POINTER(_IpcMemHandle), ctypes.c_uint64]
    lib.cuIpcOpenMemHandle_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), _IpcMemHandle, ctypes.c_uint]
    lib.cuStreamWaitValue32_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
    lib.cuStreamWriteValue32_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
    return lib


def check(code: int, what: str) -> None:
    if code != 0:
        raise RuntimeError(f"{what} failed with CUresult {code}")


def export(lib: Any, tensor: Any) -> dict[str, Any]:
    """An IPC description of a tensor's memory: the allocation's handle and the offset in it."""
    base, size = ctypes.c_uint64(), ctypes.c_size_t()
    check(
        lib.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), tensor.data_ptr()), "cuMemGetAddressRange"
    )
    handle = _IpcMemHandle()
    check(lib.cuIpcGetMemHandle(ctypes.byref(handle), base.value), "cuIpcGetMemHandle")
    raw = ctypes.string_at(ctypes.addressof(handle), 64)
    return {"handle": raw.hex(), "offset": tensor.data_ptr() - base.value, "numel": tensor.numel()}


class _Cai:
    """Just enough of __cuda_array_interface__ for torch.as_tensor to wrap a pointer."""

    def __init__(self, ptr: int, numel: int, typestr: str) -> None:
        self.__cuda_array_interface__ = {"shape": (numel,), "typestr": typestr, "data": (ptr, False), "version": 2}


_opened: dict[str, int] = {}  # handle -> base: tensors in one allocation open it once


def open_shared(lib: Any, torch: Any, desc: dict[str, Any], typestr: str) -> Any:
    if desc["handle"] not in _opened:
        handle = _IpcMemHandle.from_buffer_copy(bytes.fromhex(desc["handle"]))
        base = ctypes.c_uint64()
        check(lib.cuIpcOpenMemHandle_v2(ctypes.byref(base), handle, 1), "cuIpcOpenMemHandle")
        _opened[desc["handle"]] = base.value
    return torch.as_tensor(_Cai(_opened[desc["handle"]] + desc["offset"], desc["numel"], typestr), device="cuda")


# ---------------------------------------------------------------------------------------------
# The child.


def child_main(in_fd: int, out_fd: int) -> None:
    import torch

    torch.cuda.init()
    torch.empty(1, device="cuda")
    lib = driver()
    setup = recv(in_fd)
    x = open_shared(lib, torch, setup["x"], "<f4")
    y = open_shared(lib, torch, setup["y"], "<f4")
    flags = open_shared(lib, torch, setup["flags"], "<i4")  # [0]: go counter, [1]: done counter
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    # cycles per microsecond of torch.cuda._sleep, measured here.
    rates = []
    for _ in range(5):
        start.record()
        torch.cuda._sleep(1_000_000)
        end.record()
        end.synchronize()
        rates.append(1_000_000 / (start.elapsed_time(end) * 1000.0))
    cycles_per_us = statistics.median(rates)
    stream = torch.cuda.current_stream().cuda_stream
    flag_ptr = flags.data_ptr()
    send(out_fd, {"kind": "ready", "cycles_per_us": cycles_per_us})

    def work(us: float) -> float:
        start.record()
        torch.cuda._sleep(int(us * cycles_per_us))
        torch.add(x, 1.0, out=y)
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1000.0

    while True:
        msg = recv(in_fd)
        kind = msg["kind"]
        if kind == "quit":
            return
        if kind == "go":  # one call or a batch
            times = [work(msg["us"]) for _ in range(msg.get("n", 1))]
            send(out_fd, {"kind": "done", "times": times})
        elif kind == "gate":  # wait on the parent's flag, work, raise the done flag
            n = msg["seq"]
            check(lib.cuStreamWaitValue32_v2(stream, flag_ptr, n, 0), "cuStreamWaitValue32")  # GEQ
            start.record()
            torch.cuda._sleep(int(msg["us"] * cycles_per_us))
            torch.add(x, 1.0, out=y)
            end.record()
            check(lib.cuStreamWriteValue32_v2(stream, flag_ptr + 4, n, 0), "cuStreamWriteValue32")
            send(out_fd, {"kind": "queued"})
            end.synchronize()
            send(out_fd, {"kind": "done", "times": [start.elapsed_time(end) * 1000.0]})


# ---------------------------------------------------------------------------------------------
# The parent.


def summary(gaps: list[float]) -> dict[str, float]:
    ordered = sorted(gaps)
    n = len(ordered)
    return {
        "n": n,
        "median": round(statistics.median(ordered), 2),
        "p10": round(ordered[int(0.1 * (n - 1))], 2),
        "p90": round(ordered[int(0.9 * (n - 1))], 2),
        "min": round(ordered[0], 2),
    }


class Parent:
    def __init__(self, sandboxed: bool) -> None:
        import torch

        self.torch = torch
        torch.cuda.init()
        self.lib = driver()
        self.x = torch.randn(WORK_ELEMENTS, device="cuda")
        self.x_fresh = torch.randn(WORK_ELEMENTS, device="cuda")
        self.y = torch.empty(WORK_ELEMENTS, device="cuda")
        self.flags = torch.zeros(64, dtype=torch.int32, device="cuda")  # own allocation, 256 B
        props = torch.cuda.get_device_properties(0)
        self.flush_buf = torch.ones(2 * props.L2_cache_size // 8, dtype=torch.int64, device="cuda")
        self.flush_out = torch.empty((), dtype=torch.int64, device="cuda")
        torch.cuda.synchronize()
        self.seq = 0
        self.proc = self.start(sandboxed)
        send(
            self.to_child,
            {"x": export(self.lib, self.x), "y": export(self.lib, self.y), "flags": export(self.lib, self.flags)},
        )
        ready = recv(self.from_child)
        self.cycles_per_us = ready["cycles_per_us"]

    def start(self, sandboxed: bool) -> Any:
        job_r, job_w = os.pipe()
        res_r, res_w = os.pipe()
        source = Path(__file__).read_text(encoding="utf-8")
        if sandboxed:
            sys.path.insert(0, str(ROOT))
            import sandbox
            from sandbox.limits import Limits

            # fds 3 and 4 in the child; the probe's own source runs with -c (bench/ is not visible inside).
            proc = sandbox.start(
                [sys.executable, "-c", source, "--child", "3", "4"],
                limits=Limits(wall_seconds=600, cpu_seconds=1200, memory_bytes=32 << 30),
                gpu=0,
                pass_fds=(job_r, res_w),
            )
        else:
            proc = subprocess.Popen(
                [sys.executable, "-c", source, "--child", str(job_r), str(res_w)], pass_fds=(job_r, res_w)
            )
        os.close(job_r)
        os.close(res_w)
        self.to_child, self.from_child = job_w, res_r
        return proc

    def flush(self) -> None:
        self.torch.sum(self.flush_buf, dim=0, out=self.flush_out)
        self.torch.cuda.synchronize()

    def fresh_inputs(self) -> None:
        self.x.copy_(self.x_fresh)
        self.torch.cuda.synchronize()

    def wall(self, us: float, calls: int, flush: bool, n: int = 1) -> tuple[list[float], list[float]]:
        gaps, child = [], []
        for _ in range(calls):
            self.fresh_inputs()
            if flush:
                self.flush()
            t0 = time.monotonic_ns()
            send(self.to_child, {"kind": "go", "us": us, "n": n})
            done = recv(self.from_child)
            span_us = (time.monotonic_ns() - t0) / 1000.0
            gaps.append((span_us - sum(done["times"])) / n)
            child.extend(done["times"])
        return gaps, child

    def gate(self, us: float, calls: int, flush: bool) -> tuple[list[float], list[float]]:
        torch = self.torch
        stream = torch.cuda.current_stream().cuda_stream
        flag_ptr = self.flags.data_ptr()
        t0, t1, t2 = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        gaps, child = [], []
        for _ in range(calls):
            self.seq += 1
            if flush:
                self.flush()
            send(self.to_child, {"kind": "gate", "us": us, "seq": self.seq})
            assert recv(self.from_child)["kind"] == "queued"  # the child's wait is on its stream
            t0.record()
            self.x.copy_(self.x_fresh)  # the call's inputs arrive only now
            t1.record()
            check(self.lib.cuStreamWriteValue32_v2(stream, flag_ptr, self.seq, 0), "cuStreamWriteValue32")
            check(self.lib.cuStreamWaitValue32_v2(stream, flag_ptr + 4, self.seq, 0), "cuStreamWaitValue32")
            t2.record()
            t2.synchronize()
            done = recv(self.from_child)
            bound_us = t1.elapsed_time(t2) * 1000.0
            gaps.append(bound_us - done["times"][0])
            child.extend(done["times"])
        return gaps, child

    def close(self) -> None:
        send(self.to_child, {"kind": "quit"})
        self.proc.wait()


def main() -> int:
    if len(sys.argv) >= 4 and sys.argv[1] == "--child":
        child_main(int(sys.argv[2]), int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="")
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--sandbox", action="store_true")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    label = args.label or ("sandbox" if args.sandbox else "plain")
    began = time.monotonic()
    parent = Parent(args.sandbox)
    print(
        f"[{label}] child up in {time.monotonic() - began:.1f} s; _sleep {parent.cycles_per_us:.0f} cycles/us",
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    candidates = [
        ("wall", lambda us: parent.wall(us, args.calls, flush=False)),
        ("wall+flush", lambda us: parent.wall(us, args.calls, flush=True)),
        (f"batch{args.batch}", lambda us: parent.wall(us, max(3, args.calls // args.batch), flush=False, n=args.batch)),
        (
            f"batch{args.batch}+flush",
            lambda us: parent.wall(us, max(3, args.calls // args.batch), flush=True, n=args.batch),
        ),
        ("gate", lambda us: parent.gate(us, args.calls, flush=False)),
        ("gate+flush", lambda us: parent.gate(us, args.calls, flush=True)),
    ]
    try:
        for us in KERNEL_US:
            parent.wall(us, 5, flush=False)  # warm-up of this length
            for name, measure in candidates:
                try:
                    gaps, child = measure(us)
                except Exception as exc:  # one candidate failing must not hide the others
                    rows.append({"kernel_us": us, "candidate": name, "error": f"{type(exc).__name__}: {exc}"})
                    traceback.print_exc()
                    if name.startswith("gate"):
                        parent.close()  # a gate that failed may leave the child waiting on its flag
                        parent = Parent(args.sandbox)
                    continue
                rows.append(
                    {
                        "kernel_us": us,
                        "candidate": name,
                        "child_median_us": round(statistics.median(child), 2),
                        **summary(gaps),
                    }
                )
    finally:
        parent.close()
    result = {"label": label, "calls": args.calls, "batch": args.batch, "rows": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"\n[{label}] parent-clock gap per call (us): bound minus the child's own event time")
    print(f"{'kernel':>8} {'candidate':<14} {'child med':>10} {'gap med':>9} {'p10':>8} {'p90':>8} {'min':>8}")
    for r in rows:
        if "error" in r:
            print(f"{r['kernel_us']:>8.0f} {r['candidate']:<14} error: {r['error'][:90]}")
        else:
            print(
                f"{r['kernel_us']:>8.0f} {r['candidate']:<14} {r['child_median_us']:>10.1f} {r['median']:>9.1f} "
                f"{r['p10']:>8.1f} {r['p90']:>8.1f} {r['min']:>8.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
