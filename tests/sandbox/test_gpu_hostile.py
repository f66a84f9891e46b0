"""GPU hostile programs and GPU functionality inside the sandbox (run on the H200 by the lead:
`python3 -m pytest -c pytest-judge.ini tests/sandbox -m gpu`)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandbox import Limits, Result, WarmPool, gpu_check, run, run_collect, write_new_file
from tests.sandbox.helpers import HOSTILE, need, report

pytestmark = pytest.mark.gpu

GPU = int(os.environ.get("GRIDSTRIDE_TEST_GPU", "0"))
GPU_LIMITS = Limits(
    wall_seconds=90,
    cpu_seconds=90,
    memory_bytes=16 << 30,
    max_processes=256,
    max_open_files=4096,
    max_file_bytes=1 << 30,
    max_output_bytes=64 << 10,
    tmp_bytes=4 << 30,
)
MATMUL_CHECK = (
    "import torch\n"
    "a = torch.randn(1024, 1024, device='cuda', dtype=torch.float64)\n"
    "b = torch.randn(1024, 1024, device='cuda', dtype=torch.float64)\n"
    "c = (a @ b).cpu()\n"
    "ref = a.cpu() @ b.cpu()\n"
    "assert torch.allclose(c, ref, rtol=1e-9, atol=1e-9)\n"
    "print('matmul ok')\n"
)


def gpu_hostile(name: str, *args: str, limits: Limits = GPU_LIMITS) -> Result:
    return run([sys.executable, str(HOSTILE / name), *args], limits=limits, gpu=GPU, readable=[str(HOSTILE)])


def assert_the_gpu_serves_the_next_job() -> None:
    result = run([sys.executable, "-c", MATMUL_CHECK], limits=GPU_LIMITS, gpu=GPU)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "matmul ok\n"


def new_gpu_processes(before: set[int], timeout: float = 30) -> set[int]:
    """Processes holding a context on the GPU that were not there before the job (polls until
    none are left or the timeout passes)."""
    deadline = time.monotonic() + timeout
    while True:
        held = (gpu_check.compute_pids(GPU) or set()) - before
        if not held or time.monotonic() > deadline:
            return held
        time.sleep(0.5)


def test_an_infinite_loop_kernel_is_killed_at_the_wall_limit_and_the_gpu_serves_the_next_job() -> None:
    before = gpu_check.compute_pids(GPU) or set()
    started = time.monotonic()
    result = gpu_hostile("gpu_infinite_loop.py", limits=dataclasses.replace(GPU_LIMITS, wall_seconds=45))
    assert "kernel launched, spinning" in result.stdout, result.stderr
    assert result.limit_hit == "wall"
    assert "unreachable" not in result.stdout
    assert time.monotonic() - started < 45 + 30
    assert new_gpu_processes(before) == set()
    assert_the_gpu_serves_the_next_job()


def test_allocating_all_gpu_memory_fails_cleanly_and_the_memory_is_back_for_the_next_job() -> None:
    result = gpu_hostile("gpu_all_memory.py")
    outcome = report(result)
    assert result.exit_code == 0
    assert outcome["allocated_gib"] >= 0.9 * outcome["free_at_start_gib"] - 2
    again = gpu_hostile("gpu_all_memory.py")
    assert report(again)["allocated_gib"] >= outcome["allocated_gib"] - 1
    assert_the_gpu_serves_the_next_job()


def test_a_job_sees_none_of_the_gpu_memory_left_by_the_previous_job() -> None:
    written = report(gpu_hostile("gpu_leftover.py", "write", "16"))
    assert written["marker_words"] == (16 << 30) // 4
    seen = report(gpu_hostile("gpu_leftover.py", "read", "16"))
    assert seen["marker_words"] == 0


def test_only_the_assigned_gpus_device_nodes_are_visible() -> None:
    need("minimal_dev")
    outcome = report(gpu_hostile("gpu_devices.py"))
    assert set(outcome["nodes"]) <= {f"nvidia{GPU}", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"}
    assert f"nvidia{GPU}" in outcome["nodes"]
    assert outcome["device_count"] == 1
    assert outcome["opened"] == {f"/dev/nvidia{GPU}": "opened"}
    host_gpus = sorted(n for n in os.listdir("/dev") if n[len("nvidia") :].isdigit() and n.startswith("nvidia"))
    assert len(host_gpus) >= 1
    with pytest.raises(FileNotFoundError):
        run(["true"], limits=GPU_LIMITS, gpu=99)


def test_pinned_host_memory_counts_against_the_jobs_memory_limit() -> None:
    need("cgroup_memory")
    result = gpu_hostile("gpu_pinned_bomb.py", limits=dataclasses.replace(GPU_LIMITS, memory_bytes=6 << 30))
    assert result.limit_hit == "memory" or result.exit_code != 0, result
    assert '"pinned_gib": 64' not in result.stdout
    assert_the_gpu_serves_the_next_job()


TRITON_AND_CUPY = '''
import json, sys
import torch, triton, triton.language as tl

@triton.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(out + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)

x = torch.randn(100_000, device="cuda"); y = torch.randn(100_000, device="cuda"); out = torch.empty_like(x)
add[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
result = {"triton": bool(torch.allclose(out, x + y))}
try:
    import cupy
    k = cupy.RawKernel(r"""extern "C" __global__ void twice(float* v, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] *= 2.0f; }""", "twice")
    v = cupy.arange(1000, dtype=cupy.float32)
    k((4,), (256,), (v, cupy.int32(1000)))
    result["cupy_nvrtc"] = bool((v == cupy.arange(1000, dtype=cupy.float32) * 2).all())
except ImportError:
    result["cupy_nvrtc"] = "not installed"
print(json.dumps(result))
'''


def test_torch_triton_and_cupy_nvrtc_run_inside_the_sandbox() -> None:
    # From a file in the job's directory, as the judge runs submissions: Triton reads the source.
    result, _, _ = run_collect(
        [sys.executable, "job.py"], limits=GPU_LIMITS, gpu=GPU, files={"job.py": TRITON_AND_CUPY.encode()}
    )
    assert result.exit_code == 0, result.stderr
    outcome = report(result)
    assert outcome["triton"] is True
    assert outcome["cupy_nvrtc"] in (True, "not installed")


KERNEL_CU = b"""
extern "C" __global__ void fill(float* x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = v; }
extern "C" void launch_fill(float* x, int n, float v) { fill<<<(n + 255) / 256, 256>>>(x, n, v); }
"""
LOAD_AND_RUN = """
import ctypes, errno, json, os, sys, torch
lib = ctypes.CDLL(sys.argv[1] + "/k.so")
x = torch.zeros(1000, device="cuda")
lib.launch_fill(ctypes.c_void_p(x.data_ptr()), ctypes.c_int(1000), ctypes.c_float(3.0))
torch.cuda.synchronize()
try:
    open(sys.argv[1] + "/k.so", "ab").write(b"poison"); cache = "writable"
except OSError as e:
    cache = os.strerror(e.errno) if e.errno in (errno.EROFS, errno.EACCES) else repr(e)
print(json.dumps({"ok": bool((x == 3.0).all()), "cache": cache}))
"""


def test_an_nvcc_library_built_in_one_sandbox_runs_in_the_next_from_a_cache_only_trusted_code_writes(
    tmp_path: Path,
) -> None:
    major, minor = _compute_capability()
    build, files, errors = run_collect(
        ["nvcc", "-shared", "-Xcompiler", "-fPIC", f"-arch=sm_{major}{minor}", "-o", "k.so", "k.cu"],
        limits=dataclasses.replace(GPU_LIMITS, memory_bytes=4 << 30),
        files={"k.cu": KERNEL_CU},
        collect=["k.so"],
    )
    assert build.exit_code == 0, build.stderr
    assert errors == {}
    cache = tmp_path / "cache"
    cache.mkdir()
    for d in (tmp_path, cache):
        d.chmod(0o755)
    write_new_file(str(cache), "k.so", files["k.so"])
    result = run([sys.executable, "-c", LOAD_AND_RUN, str(cache)], limits=GPU_LIMITS, gpu=GPU, readable=[str(cache)])
    outcome = report(result)
    # Refused either way: the job's uid may not write the root-owned file (EACCES) and the
    # mount is read-only (EROFS); which check the kernel makes first varies by host.
    assert outcome["ok"] is True, result.stderr
    assert outcome["cache"] in ("Read-only file system", "Permission denied"), outcome
    assert (cache / "k.so").read_bytes() == files["k.so"]


def _compute_capability() -> tuple[int, int]:
    # Asked of nvidia-smi, not torch: this test process must not hold a CUDA context of its own.
    out = subprocess.run(
        ["nvidia-smi", "-i", str(GPU), "--query-gpu=compute_cap", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    major, minor = out.split(".")
    return int(major), int(minor)


WARM_CUDA_CHILD = """
import json, os, time
import torch, triton
torch.cuda.init(); torch.zeros(1, device="cuda"); torch.cuda.synchronize()
ready = time.time()
job = json.loads(os.read(3, 1 << 16))
n = job["n"]
a = torch.randn(n, n, device="cuda", dtype=torch.float64)
c = a @ a.T
ok = bool(torch.allclose(c, c.T))
os.write(4, json.dumps({"cuda_ready_at": ready, "ok": ok}).encode())
"""


def test_a_warm_process_has_cuda_ready_before_its_job_and_serves_it() -> None:
    with WarmPool([sys.executable, "-c", WARM_CUDA_CHILD], limits=GPU_LIMITS, gpu=GPU) as pool:
        time.sleep(20)  # let it import torch and initialise CUDA
        warm = pool.take()
        taken_at = time.time()
        warm.channel_out.write(json.dumps({"n": 512}).encode())
        warm.channel_out.close()
        answer = json.loads(warm.channel_in.read())
        result = warm.wait(60)
    assert result.exit_code == 0, result.stderr
    assert answer["ok"] is True
    assert answer["cuda_ready_at"] < taken_at  # CUDA was up before the job was handed over
