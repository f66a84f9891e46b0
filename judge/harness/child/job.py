"""The sandboxed child's entry: read one job, run it (runner.py), report raw observations.

Started as `python -m judge.harness.child` inside the sandbox, possibly ahead of time (a warm
process: torch imported, CUDA initialised, blocked on fd 3 until a job arrives). It reads one job
frame, generates every input itself from the per-case seeds (the same generate_inputs as the
parent: deterministic), calls solve() and sends back what it saw: full outputs, input checksums,
per-call times and drains, profiler kernel names, broken rules. It decides nothing: the parent
compares, computes statistics and gives the verdict. It serves exactly one job, then exits.

The frames it sends to the parent (fd 4) and the parent's answers it reads (fd 3) are the
dataclasses of judge/harness/common/frames.py, one per kind, each saying what it carries.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
import tempfile
import traceback

import torch

from judge.harness import languages
from judge.harness.child.channel import Channel, Stop, Violation
from judge.harness.child.ncu_mode import run_for_ncu
from judge.harness.child.runner import Runner
from judge.harness.child.warmup import warm_up
from judge.harness.common import frames, framing
from judge.harness.common.child_job import ChildJob
from judge.harness.common.errors import trim

MAX_LIBRARY_BYTES = 64 << 20


def materialize(job: ChildJob, library: bytearray | None) -> None:
    """Write the job's files into a private directory of this process: the submission (Triton
    reads kernel source from a real file; a CUDA library must be a file to dlopen) and the
    reference module that generates the inputs. Nothing here is read from the host."""
    directory = tempfile.mkdtemp(prefix="job-", dir=os.environ.get("TMPDIR") or "/tmp")
    paths = {}
    if languages.get(job.language).compiled:
        if library is None:
            raise RuntimeError("a job of a compiled language arrived without its library")
        paths["solution"] = os.path.join(directory, "solution.so")
        with open(paths["solution"], "wb") as fh:
            fh.write(library)
    else:
        paths["solution"] = os.path.join(directory, job.shown_as)
        with open(paths["solution"], "w", encoding="utf-8") as fh:
            fh.write(job.source)
    if job.reference_source:  # the input generator: only where the child makes its own inputs
        paths["reference"] = os.path.join(directory, "gridstride_reference.py")
        with open(paths["reference"], "w", encoding="utf-8") as fh:
            fh.write(job.reference_source)
    job.paths = paths


def process_age_s() -> float | None:
    """Seconds since this process started (from /proc), or None where that cannot be read."""
    try:
        with open("/proc/self/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        return round(uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"), 3)  # field 22: starttime
    except (OSError, ValueError, IndexError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge.harness.child")
    parser.add_argument("--in-fd", type=int, default=3)
    parser.add_argument("--out-fd", type=int, default=4)
    parser.add_argument("--region-fd", type=int, default=5)
    parser.add_argument("--job-file", help="read the job frame from this file (ncu mode; no channel)")
    args = parser.parse_args(argv)

    device = os.environ.get("GRIDSTRIDE_DEVICE", "cpu")
    if device == "cuda":
        torch.cuda.init()
        torch.empty(1, device="cuda")  # create the context before the job arrives (warm start)
    # Not before ncu: a profiler session of our own would be in its way.
    warmed: dict[str, float | None] = {}
    if not args.job_file:
        warmed["start-up"] = process_age_s()  # python, torch and the CUDA context
        warmed.update(warm_up(device))

    regions: socket.socket | None
    if args.job_file:
        with open(args.job_file, "rb") as fh:
            raw, library = framing.read_frame(fh, max_blob=MAX_LIBRARY_BYTES)
        channel = Channel(None, None)
        regions = None  # ncu mode: the child-made inputs of GPU hosts
        # ncu writes its report to stdout; keep the submission's prints off it.
        os.dup2(2, 1)
    else:
        reader = framing.open_reader(args.in_fd)
        writer = framing.open_writer(args.out_fd)
        channel = Channel(writer, reader)
        try:  # the fds of the memory the parent shares (CPU hosts); a launcher of old passes none
            regions = socket.socket(fileno=args.region_fd)
        except OSError:
            regions = None
        # Warm: said before waiting, so the pool can tell a warmed process from one still
        # starting (sandbox.WarmPool.warm_idle) and the report can show what the warm-up took.
        with contextlib.suppress(Exception):
            channel.send(frames.Warm(warmed=warmed))
        try:
            raw, library = framing.read_frame(reader, max_blob=MAX_LIBRARY_BYTES)
        except (framing.ChannelClosed, framing.FrameError):
            os._exit(2)
    code = 0
    # The time limit starts now: the process start-up (imports, CUDA context) is the judge's.
    with contextlib.suppress(Exception):
        channel.send(frames.Ready())
    try:
        raw.pop("blob", None)  # the framing's length of the compiled library, not a field of the job
        job = ChildJob.from_dict(raw)
        materialize(job, library)
        if job.ncu:
            run_for_ncu(job, channel)
        else:
            Runner(job, channel, regions).run()
    except Stop:
        pass
    except Violation as exc:
        channel.send(frames.Violation(rule=exc.rule, message=exc.message))
    except BaseException as exc:
        if isinstance(exc, torch.cuda.OutOfMemoryError):
            channel.send(frames.Error(verdict="memory_limit", message=f"out of memory: {trim(str(exc), 2000)}"))
        else:
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            print(detail, file=sys.stderr, flush=True)
            channel.send(frames.Error(verdict="internal_error", message=trim(detail, 8000)))
            code = 1
    with contextlib.suppress(Exception):
        channel.send(frames.Done())
    sys.stdout.flush()
    sys.stderr.flush()
    # Exit without running the submission's atexit hooks or waiting for its threads.
    os._exit(code)
