"""What a job's sandbox contains: the file-system view, the environment and the rlimits.

The view is an allow-list: a fresh tmpfs root that holds only the system directories, the Python
environment, the judge's own code and the paths the caller names as readable. Nothing else of
the host exists inside (no /root, /home, /var, no site source or settings, no database, no
other submissions). Secrets that could sit under a bound tree are masked as a second line.
"""

from __future__ import annotations

import math
import os
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sandbox import gpu_check
from sandbox.limits import Limits

REPO = Path(__file__).resolve().parent.parent
SANDBOX_UID = int(os.environ.get("GRIDSTRIDE_SANDBOX_UID", "65534"))
SANDBOX_GID = int(os.environ.get("GRIDSTRIDE_SANDBOX_GID", "65534"))
# CPU seconds a warm process may spend importing torch/triton and initialising CUDA before its job.
WARM_CPU_ALLOWANCE = 120

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_BINDS = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime")
# The judge's code the child may import; everything else in the repository stays outside.
REPO_CODE = ("judge", "sandbox")
# Never visible, even if a caller binds a tree that contains them.
REPO_HIDDEN = ("var", "platform", ".git", ".env", "reference_kernels", "problems")
PASSTHROUGH_ENV = ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "TRITON_INTERPRET", "TRITON_PTXAS_PATH")

ETC_FILES = {
    "/etc/passwd": "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
    f"sandbox:x:{SANDBOX_UID}:{SANDBOX_GID}:sandbox:/tmp:/usr/sbin/nologin\n",
    "/etc/group": f"root:x:0:\nsandbox:x:{SANDBOX_GID}:\n",
    "/etc/hosts": "127.0.0.1 localhost\n::1 localhost\n",
    "/etc/resolv.conf": "",
    "/etc/nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
    "/etc/hostname": "sandbox\n",
}


def staging_dir() -> str:
    """An empty root-owned directory the launcher mounts the new root on (inside its namespace)."""
    base = Path("/run") if Path("/run").is_dir() else Path("/tmp")
    path = base / "gridstride-sandbox" / "root"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return str(path)


def _python_dirs() -> list[str]:
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    dirs.add(str(Path(os.path.realpath(sys.executable)).parent.parent))
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(path)
    return sorted(dirs)


def extra_python_paths() -> list[str]:
    """Import directories of this interpreter outside its prefixes (e.g. packages installed with
    `pip install --user` as root, under /root/.local): the job's Python would not find them (its
    HOME is /tmp), so they are bound read-only and put on its PYTHONPATH. Never the repository."""
    prefixes = [os.path.realpath(p) for p in _python_dirs()]
    repo = str(REPO)
    extra = []
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        if not real or not os.path.isdir(real) or _covered(real, prefixes) or _covered(real, [repo]):
            continue
        if real == "/" or _covered(real, secret_paths()) or real in extra:
            continue
        extra.append(real)
    return extra


def nested_mounts(binds: Iterable[str], mountinfo: str = "/proc/self/mountinfo") -> list[str]:
    """Mount points strictly inside one of the bound trees, parents before children."""
    roots = list(binds)
    try:
        with open(mountinfo) as f:
            points = [line.split()[4].replace("\\040", " ") for line in f if len(line.split()) > 4]
    except OSError:
        return []
    inside = {p for p in points if os.path.isdir(p) and any(p != r and _covered(p, [r]) for r in roots)}
    return sorted(inside, key=lambda p: (p.count("/"), p))


def _covered(path: str, binds: Iterable[str]) -> bool:
    return any(path == b or path.startswith(b.rstrip("/") + "/") for b in binds)


def secret_paths() -> list[str]:
    hidden = [str(REPO / name) for name in REPO_HIDDEN]
    secret = os.environ.get("GRIDSTRIDE_JUDGE_SECRET_FILE")
    if secret:
        hidden.append(os.path.realpath(secret))
    hidden += ["/etc/shadow", "/etc/gshadow", "/root/.ssh", "/etc/gridstride"]
    return hidden


def mount_plan(*, gpu: int | None, readable: Iterable[str], limits: Limits) -> dict[str, Any]:
    symlinks: list[tuple[str, str]] = []
    binds: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            symlinks.append((d, os.readlink(d)))
        elif os.path.isdir(d):
            binds.append(d)
    candidates = [*ETC_BINDS, *(str(p) for p in Path("/etc").glob("python3*"))]
    candidates += _python_dirs() + extra_python_paths() + [str(REPO / name) for name in REPO_CODE]
    for env_dir in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env_dir):
            candidates.append(os.environ[env_dir])
    for path in readable:
        candidates.append(os.path.realpath(path))
    for path in candidates:
        real = os.path.realpath(path)
        if os.path.exists(real) and not _covered(real, binds):
            binds.append(real)
    # A bind is not recursive: mounts nested inside a bound tree (the GPU host's driver libraries
    # live on their own read-only mount at /usr/local/nvidia) are bound one by one after it.
    binds += [m for m in nested_mounts(binds) if m not in binds and not _covered(m, secret_paths())]
    binds.sort(key=lambda p: (p.count("/"), p))
    gpu_devices = [] if gpu is None else gpu_device_nodes(gpu, gpu_check.minor(gpu))
    return {
        "staging": staging_dir(),
        "symlinks": symlinks,
        "binds": binds,
        "files": ETC_FILES,
        "masks": [p for p in secret_paths() if _covered(p, binds)],
        "gpu_devices": gpu_devices,
        "tmp_bytes": limits.tmp_bytes,
        "shm_bytes": min(limits.tmp_bytes, 1 << 30),
    }


# Where the host's device nodes are (the launcher binds each from here into the job's /dev).
DEV_DIR = "/dev"
# Nodes every CUDA process needs besides its GPU's own; nvidia-uvm-tools only where it exists.
GPU_SHARED_NODES = ("nvidiactl", "nvidia-uvm")
GPU_OPTIONAL_NODES = ("nvidia-uvm-tools",)


def gpu_device_nodes(gpu: int, minor: int, dev_dir: str | None = None) -> list[str]:
    """The /dev entries a job on `gpu` gets: that GPU's node and the shared ones, never another
    GPU's. The node is named by the device's minor number, not its index: in a container given
    one GPU that GPU is index 0 to nvidia-smi and CUDA but keeps its host node (/dev/nvidia3)."""
    dev_dir = dev_dir or DEV_DIR
    nodes = [f"nvidia{minor}", *GPU_SHARED_NODES]
    missing = [d for d in nodes if not os.path.exists(os.path.join(dev_dir, d))]
    if missing:
        raise FileNotFoundError(f"GPU {gpu} (device minor {minor}): missing device nodes {missing}")
    return nodes + [d for d in GPU_OPTIONAL_NODES if os.path.exists(os.path.join(dev_dir, d))]


def environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """A scrubbed environment: nothing of the worker's (no credentials, no settings) leaks in."""
    python_bin = str(Path(sys.executable).parent)
    env = {
        "PATH": f"{python_bin}:/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "USER": "sandbox",
        "LOGNAME": "sandbox",
        "LANG": "C.UTF-8",
        "PYTHONPATH": os.pathsep.join([str(REPO), *extra_python_paths()]),
        "PYTHONSAFEPATH": "1",  # no cwd / script dir on sys.path: a planted torch.py is never imported
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "TRITON_CACHE_DIR": "/tmp/.triton",
        "XDG_CACHE_HOME": "/tmp/.cache",
        "CUDA_CACHE_PATH": "/tmp/.nv/ComputeCache",
    }
    for name in PASSTHROUGH_ENV:
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(extra or {})
    return env


def rlimits(
    limits: Limits,
    *,
    memory_cgroup: bool,
    pids_cgroup: bool,
    gpu: int | None,
    warm: bool,
    cpu_cgroup: bool = False,
) -> dict[str, list[int]]:
    # With cgroup CPU accounting the parent enforces the limit on the whole tree and RLIMIT_CPU
    # (per process) is a backstop set a little higher, so a compiler that catches SIGXCPU and
    # exits "normally" is still reported as a CPU overrun rather than a compile error.
    cpu = math.ceil(limits.cpu_seconds) + (WARM_CPU_ALLOWANCE if warm else 0) + (2 if cpu_cgroup else 0)
    out = {
        "cpu": [cpu, cpu + 1],  # SIGXCPU first, SIGKILL a second later
        # RLIMIT_NPROC counts every process of the uid host-wide: the pids cgroup is the real
        # per-job limit when present; this is the backstop (a small value breaks CUDA).
        "nproc": [limits.max_processes] * 2 if not pids_cgroup else [8192, 8192],
        "nofile": [limits.max_open_files] * 2,
        "fsize": [limits.max_file_bytes] * 2,
        "core": [0, 0],
    }
    if not memory_cgroup and gpu is None:
        out["as"] = [limits.memory_bytes] * 2  # CPU-only stand-in; never with CUDA
    return out
