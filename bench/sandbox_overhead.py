"""Sandbox overhead: cold start vs warm-pool handoff, per job.

    .venv/judge/bin/python bench/sandbox_overhead.py            # dev machine (CPU)
    python3 bench/sandbox_overhead.py --gpu 0                    # GPU host
    ... [--jobs 20] [--heavy-jobs 8] [--no-write]

Two children: a bare Python, and one that imports torch and triton (and with --gpu initialises
CUDA). For each, N jobs measured three ways:
  unsandboxed  a plain subprocess doing the same (the floor: Python + imports)
  cold         sandbox.run/start per job: sandbox setup + interpreter + imports (+ CUDA) + job
  warm         WarmPool: a process started ahead and ready; time from take() to the answer
A job is one small message in on fd 3 and its echo back on fd 4. Writes a table (median, p90,
in milliseconds) into docs/benchmarks.md, section "Sandbox overhead", subsection per host.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sandbox import Limits, WarmPool, capabilities, start  # noqa: E402

LIMITS = Limits(wall_seconds=300, cpu_seconds=300, memory_bytes=16 << 30, max_processes=512, tmp_bytes=2 << 30)
# The child signals "ready" with one byte on fd 4 once its imports are done, then serves one job.
BARE = "import os\nos.write(4, b'R')\nd = os.read(3, 100)\nos.write(4, d)\n"
HEAVY = "import os\nimport torch, triton\n{cuda}os.write(4, b'R')\nd = os.read(3, 100)\nos.write(4, d)\n"
CUDA_INIT = "torch.zeros(1, device='cuda'); torch.cuda.synchronize()\n"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def serve(channel_out: int, channel_in: int) -> None:
    os.write(channel_out, b"job")
    os.close(channel_out)
    answer = b""
    while len(answer) < 4:
        chunk = os.read(channel_in, 16)
        if not chunk:
            break
        answer += chunk
    os.close(channel_in)
    if answer != b"Rjob":
        raise RuntimeError(f"unexpected answer {answer!r}")


def unsandboxed(code: str, env: dict[str, str]) -> float:
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", f"import os\nos.dup2({job_r}, 3)\nos.dup2({res_w}, 4)\n" + code],
        pass_fds=(job_r, res_w),
        env=env,
    )
    os.close(job_r)
    os.close(res_w)
    serve(job_w, res_r)
    elapsed = time.perf_counter() - t0
    proc.wait()
    return elapsed


def cold(code: str, gpu: int | None) -> float:
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    t0 = time.perf_counter()
    job = start([sys.executable, "-c", code], limits=LIMITS, gpu=gpu, pass_fds=(job_r, res_w))
    os.close(job_r)
    os.close(res_w)
    serve(job_w, res_r)
    elapsed = time.perf_counter() - t0
    result = job.wait(60)
    if result.exit_code != 0:
        raise RuntimeError(result.stderr)
    return elapsed


def wait_ready(pool: WarmPool) -> None:
    """Untimed: block until the pool's next process says it is ready (as between real jobs)."""
    deadline = time.monotonic() + 300
    while not pool._idle and time.monotonic() < deadline:
        time.sleep(0.01)
    ready = pool._idle[0].channel_in.read(1)
    if ready != b"R":
        raise RuntimeError("warm process died before it was ready: " + pool._idle[0].job.wait(30).stderr)


def warm(pool: WarmPool) -> float:
    t0 = time.perf_counter()
    job = pool.take()
    job.channel_out.write(b"job")
    job.channel_out.close()
    answer = job.channel_in.read(3)
    elapsed = time.perf_counter() - t0
    if answer != b"job":
        raise RuntimeError(f"unexpected answer {answer!r}")
    result = job.wait(60)
    if result.exit_code != 0:
        raise RuntimeError(result.stderr)
    return elapsed


def measure(label: str, code: str, n: int, gpu: int | None) -> list[tuple[str, str, list[float]]]:
    """The three modes take turns, job by job, so that a shared machine's changing load hits
    them alike; the pool's refill is waited for (untimed) before the next round."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp"}
    times: dict[str, list[float]] = {"unsandboxed": [], "cold": [], "warm": []}
    with WarmPool([sys.executable, "-c", code], limits=LIMITS, gpu=gpu) as pool:
        wait_ready(pool)
        for _ in range(n):
            times["unsandboxed"].append(unsandboxed(code, env))
            times["cold"].append(cold(code, gpu))
            times["warm"].append(warm(pool))
            wait_ready(pool)
    for mode, values in times.items():
        median, p90 = statistics.median(values) * 1e3, percentile(values, 0.9) * 1e3
        print(f"{label:28s} {mode:12s} median {median:9.1f} ms  p90 {p90:9.1f} ms", flush=True)
    return [(label, mode, values) for mode, values in times.items()]


def host_label(gpu: int | None) -> str:
    if gpu is not None and shutil.which("nvidia-smi"):
        name = subprocess.run(
            ["nvidia-smi", "-i", str(gpu), "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        return f"GPU host: {name} ({os.cpu_count()} cores)"
    return f"CPU-only host ({os.cpu_count()} cores, {platform.machine()})"


def render(label: str, rows: list[tuple[str, str, list[float]]], n: dict[str, int], gpu: int | None) -> str:
    caps = capabilities()
    lines = [
        f"### {label}",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} (load average {os.getloadavg()[0]:.1f} at the end) with Python {platform.python_version()}, "
        f"`bench/sandbox_overhead.py{' --gpu ' + str(gpu) if gpu is not None else ''}`; "
        f"layers: {len(caps.active())} of {len(caps.active()) + len(caps.missing())} active"
        + (f" (missing: {', '.join(caps.missing())})" if caps.missing() else "")
        + ".",
        "",
        "| child | jobs | unsandboxed median / p90 | cold sandbox median / p90 | warm handoff median / p90 |",
        "| --- | --- | --- | --- | --- |",
    ]
    by_child: dict[str, dict[str, list[float]]] = {}
    for child, mode, times in rows:
        by_child.setdefault(child, {})[mode] = times
    for child, modes in by_child.items():
        cells = [
            f"{statistics.median(modes[m]) * 1e3:.1f} / {percentile(modes[m], 0.9) * 1e3:.1f} ms"
            for m in ("unsandboxed", "cold", "warm")
        ]
        lines.append(f"| {child} | {n[child]} | " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


SECTION = "## Sandbox overhead"
INTRO = """Time per job from "start a sandboxed process" (cold) or "take a warm one" (warm) to its
answer on fd 4, for a trivial job. Cold includes building the sandbox (namespaces, mounts,
cgroup), the interpreter start, the imports and, on GPU hosts, CUDA initialisation; warm is what
a job pays when the pool had a process ready. The three modes take turns job by job, so a
shared machine's changing load hits them alike. Produced by `bench/sandbox_overhead.py`, one
subsection per host kind (re-running on a host replaces only its subsection).

Reading it: the sandbox's own cost is the cold-minus-unsandboxed gap of the bare child (a
launcher process, namespaces, about twenty mounts, a cgroup); for a torch child it is lost in
the import time, which the warm pool removes from the job's path entirely.
"""


def write_section(path: Path, label: str, body: str) -> None:
    """Replace (or add) this host's subsection inside "Sandbox overhead"; nothing else changes."""
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    if SECTION not in text:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\n{INTRO}\n"
    start_at = text.index(SECTION)
    following = re.search(r"^## ", text[start_at + len(SECTION) :], re.M)
    end_at = start_at + len(SECTION) + following.start() if following else len(text)
    section = text[start_at:end_at]
    subsection = re.compile(rf"^### {re.escape(label)}\n.*?(?=^### |\Z)", re.M | re.S)
    section = subsection.sub("", section).rstrip("\n") + "\n\n" + body.rstrip("\n") + "\n"
    rest = text[end_at:]
    path.write_text(text[:start_at] + section + ("\n" + rest if rest else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", type=int, default=None, help="GPU index (initialises CUDA in the heavy child)")
    parser.add_argument("--jobs", type=int, default=20, help="jobs per mode for the bare child")
    parser.add_argument("--heavy-jobs", type=int, default=6, help="jobs per mode for the torch+triton child")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    args = parser.parse_args()
    heavy_label = "torch + triton" + (" + CUDA init" if args.gpu is not None else "")
    rows = measure("bare python", BARE, args.jobs, args.gpu)
    rows += measure(
        heavy_label, HEAVY.format(cuda=CUDA_INIT if args.gpu is not None else ""), args.heavy_jobs, args.gpu
    )
    label = host_label(args.gpu)
    body = render(label, rows, {"bare python": args.jobs, heavy_label: args.heavy_jobs}, args.gpu)
    print(body)
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", label, body)
        print("wrote docs/benchmarks.md", file=sys.stderr)


if __name__ == "__main__":
    main()
