"""JudgeConfig: what a judge process knows about itself (device, secret, caches, ceilings), and
the policies it judges by (timing method switches, sandbox). The environment is read once, at the
edge: JudgeConfig.from_env() (the worker, the CLI); code inside the harness is passed the config."""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.harness.child.timing import TimingPolicy
from judge.harness.parent.launch import SandboxSetting
from judge.harness.parent.pool_size import PoolSize
from judge.harness.parent.pool_size import choose as choose_pool_size
from judge.spec import REPO_ROOT

log = logging.getLogger("judge.harness")


def var_dir() -> Path:
    return Path(os.environ.get("GRIDSTRIDE_VAR_DIR", REPO_ROOT / "var"))


def load_secret() -> bytes:
    """The worker's secret: GRIDSTRIDE_JUDGE_SECRET_FILE, else random for this process.

    A random secret is fine for a single worker (seeds only need to be unpredictable); several
    workers that must re-judge identically share a file. The child's environment never carries
    the variable, and the sandbox does not mount the file.
    """
    path = os.environ.get("GRIDSTRIDE_JUDGE_SECRET_FILE")
    if path:
        data = Path(path).read_bytes().strip()
        if len(data) < 16:
            raise ValueError(f"{path}: the judge secret must be at least 16 bytes")
        return data
    return os.urandom(32)


def detect_device() -> str:
    forced = os.environ.get("GRIDSTRIDE_JUDGE_DEVICE")
    if forced in ("cpu", "cuda"):
        return forced
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def physical_gpu_index() -> int:
    """The GPU this process uses, as nvidia-smi and the sandbox number it (CUDA_VISIBLE_DEVICES
    renumbers devices inside the process; the child's environment is built from scratch)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return int(visible) if visible.isdigit() else 0


@dataclass(frozen=True)
class MethodSwitches:
    """Switches of the timing method for comparison runs (bench/repeat_probe.py, bench/drain_probe.py);
    the defaults are the method itself."""

    outputs_per_set: bool = True  # each input set its own outputs (False: one shared output buffer)
    flush: str | None = None  # the L2 flush: "read" or "write"; None: the policy's own
    drain_detail: bool = False  # per timed call, what the drain's synchronize cost the host thread
    launch_cover: str | None = None  # "sleep", "fill", or "0" for none; None: the policy's own

    def __post_init__(self) -> None:
        if self.flush not in (None, "read", "write"):
            raise ValueError(f"GRIDSTRIDE_FLUSH must be read or write, not {self.flush!r}")
        if self.launch_cover not in (None, "sleep", "fill", "0"):
            raise ValueError(f"GRIDSTRIDE_LAUNCH_COVER must be sleep, fill or 0, not {self.launch_cover!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> MethodSwitches:
        env = os.environ if environ is None else environ
        return cls(
            outputs_per_set=env.get("GRIDSTRIDE_OUTPUTS_PER_SET", "1") != "0",
            flush=env.get("GRIDSTRIDE_FLUSH"),
            drain_detail=env.get("GRIDSTRIDE_DRAIN_DETAIL", "0") == "1",
            launch_cover=env.get("GRIDSTRIDE_LAUNCH_COVER"),
        )

    def apply(self, policy: TimingPolicy) -> TimingPolicy:
        policy.outputs_per_set = self.outputs_per_set
        policy.flush = self.flush or policy.flush
        policy.drain_detail = self.drain_detail
        if self.launch_cover == "0":
            policy.cover_max_us = 0.0
        elif self.launch_cover is not None:
            policy.cover_kind = self.launch_cover
        return policy


@dataclass
class JudgeConfig:
    device: str = field(default_factory=detect_device)
    secret: bytes = field(default_factory=load_secret, repr=False)
    # Compiled CUDA libraries, written only by this (trusted) process.
    cache_dir: Path = field(default_factory=lambda: var_dir() / "judge" / "cuda-cache")
    # Fresh per-job directories (the source file the child reads) live here.
    work_dir: Path = field(default_factory=lambda: Path(tempfile.gettempdir()) / "gridstride-jobs")
    # A sandbox.WarmPool of already started children (optional).
    pool: Any = None
    # The judge's own kernels in a Triton cache each child starts from (triton_seed.py); built
    # on the first use on a GPU, False where that failed.
    triton_seed: Path | bool | None = None
    # Index of this worker's GPU (the sandbox exposes only that one to the child).
    gpu_index: int | None = field(default_factory=physical_gpu_index)
    # Machine ceilings {dram_gbps, bf16_tflops, fp32_tflops}; measured on first use on a GPU.
    ceilings: dict[str, float] | None = None
    # Where the CLI keeps measured ceilings between invocations (None: measure per process).
    ceilings_cache: Path | None = None
    # The timing policy; None: the device's own, with `switches` applied.
    policy: TimingPolicy | None = None
    switches: MethodSwitches = field(default_factory=MethodSwitches)
    # How submissions are isolated: every sandbox layer, unless the development switch says off.
    sandbox: SandboxSetting = field(default_factory=SandboxSetting)
    # A median below floor_factor x the roofline floor is impossible-time. The floor uses the
    # measured ceilings, which honest kernels can beat: on the H200 a plain vector add ran at
    # 105.5% of the measured copy bandwidth (183.2 us against a 193.2 us floor, selftest of
    # 2026-11-30), which 0.95 rejected. 0.85 allows 118% of the measured copy bandwidth, above
    # the H200's HBM3e peak of 4.8 TB/s (112% of its 4.28 TB/s copy), and 118% of torch.matmul's
    # 8192^3 rate, 94% of the dense bf16 peak; a replayed result is far below either.
    floor_factor: float = 0.85
    # A drain (the device-wide synchronize right after a timed call's end event) is slow above
    # max(drain_abs_us, drain_rel x the call). What honest calls drain in, on the H200
    # (2026-12-01): bench/drain_probe.py, 10 judgings of two experts, per shape a median of
    # 11-39 us and single calls over 100 us; bench/precision.py, in 7 of 68 judgings 30-100% of
    # one shape's calls drained slowly (the slowest 73-95 us), in the 3 timed again both times.
    # In the probe the thread spun through every slow drain (CPU time = the drain, no context
    # switch) and a second synchronize right after took 12-18 us: a wait inside the driver, not
    # the scheduler; nothing of the harness or of these kernels runs on another stream. At 50 us
    # the rule rejected those honest kernels; 200 us is about twice the slowest honest drain
    # seen. Work hidden on another stream drains in its own time (a GEMM hidden on a side stream:
    # 1573 us), and with one hardware queue per child the end event waits for side-stream work
    # queued before it (docs/judging.md).
    drain_abs_us: float = 200.0
    drain_rel: float = 0.05
    # Hidden work that pays must sit in most calls: the score is a median, and work hidden in a
    # share f < 1/2 of the calls only moves it to the (1/2 - f) / (1 - f) quantile of the honest
    # calls (f = 1/4: from the 50th to the 33rd percentile of a spread of ~1%).
    drain_tolerated_share: float = 0.25
    # A shape whose drains break that rule is timed once more before it is rejected (a
    # disturbance of the host or driver passes; hidden work is there on every timing); the
    # score is the last timing's.
    timing_attempts: int = 2
    pool_sets: int = 16
    # The forged-timing rule (parent/clock.py): how far the parent's own figures for a shape's
    # timed calls may exceed the child's claims, after the calibrated handshake is taken off,
    # before the claims count as forged: the larger of the absolute bound and `rel` of the
    # claimed median. On CPU hosts the wall bound is wide (a shared host's scheduler) and the
    # CPU-time bound tight (docs/judging.md, "The trust boundary", gives the measurements).
    # Calls on memory the parent owns (parent/shared_calls.py): None is the host's default (on
    # for CPU hosts, off for GPU hosts until its precision is measured within the goal);
    # True/False force it (GRIDSTRIDE_PARENT_MEMORY).
    parent_memory: bool | None = None
    # On parent-owned GPU memory the launch cover is the judge's, of one fixed length for the
    # calibration and the submission alike (docs/judging.md section 2): what a submission that
    # skips it could shave off a call unseen.
    gpu_cover_us: float = 50.0
    clock_wall_allowance_us: float = 300.0
    clock_cpu_allowance_us: float = 50.0
    clock_allowance_rel: float = 0.05
    # The check of a benchmark shape's first, untimed call reads at most this much of each output
    # (tensors.sample_positions); the final timed call's output is checked whole. A whole early
    # check cost ~2.5 s per GiB of output on the H200 (pipeline_gpu, 2026-11-30) to give a wrong
    # answer before the timing rather than after it.
    precheck_sample_bytes: int = 16 << 20
    pool_memory_fraction: float = 0.4
    # Baseline medians per (slug, ranking hash, shape name), timed once per worker.
    baseline_cache: dict[tuple[str, str, str], float | None] = field(default_factory=dict)
    system: dict[str, Any] | None = None
    # Host memory of a child (the warm pool's processes are started with it).
    child_memory_bytes: int = 16 << 30
    # Keep sandboxed children started ahead (python + torch + CUDA take seconds to start): at
    # most warm_pool_max of them (None: pool_size's default for the device), fewer where memory
    # is short; the size chosen and why are kept in pool_size once the pool is made.
    warm_pool: bool = True
    warm_pool_max: int | None = None
    pool_size: PoolSize | None = None
    # Caps every time limit of the problems (tests and tools; None: the problem's limits).
    limit_cap_seconds: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def timing_policy(self) -> TimingPolicy:
        """A fresh copy each call (a job's plan narrows its limits)."""
        if self.policy is not None:
            return TimingPolicy.from_dict(self.policy.as_dict())
        return self.switches.apply(TimingPolicy() if self.device == "cuda" else TimingPolicy.for_cpu())

    def get_ceilings(self) -> dict[str, float]:
        """Measured once per process (or read from ceilings_cache when fresh). A CPU host measures
        its own (ceilings.cpu_ceilings) for the roofline, once per process."""
        if self.device != "cuda":
            with self._lock:
                if self.ceilings is None:
                    from judge.harness.parent.ceilings import cpu_ceilings

                    self.ceilings = cpu_ceilings()
                return dict(self.ceilings)
        with self._lock:
            if self.ceilings is None:
                from judge.harness.parent.ceilings import measure_or_load

                self.ceilings = measure_or_load(self.ceilings_cache)
            return dict(self.ceilings)

    def triton_seed_dir(self) -> Path | None:
        """The seed for children's Triton caches: built on the first call on a GPU host (a few
        seconds, once per worker and version), None on a CPU host or if it could not be built."""
        if self.device != "cuda":
            return None
        with self._lock:
            if self.triton_seed is None:
                from judge.harness.parent.plan import child_env
                from judge.harness.parent.triton_seed import ensure_seed

                built = ensure_seed(var_dir() / "judge" / "triton-seed", self.gpu_index or 0, child_env(self))
                self.triton_seed = built or False
            return self.triton_seed if isinstance(self.triton_seed, Path) else None

    def child_readable(self) -> list[str]:
        """Paths a child may read beyond the sandbox's own list."""
        seed = self.triton_seed_dir()
        return [str(seed)] if seed else []

    def child_pool(self, argv: list[str], env: dict[str, str], gpu: int | None) -> Any:
        """The warm pool (created on first use; None where the sandbox is not in use)."""
        if not self.warm_pool:
            return None
        readable = self.child_readable()  # before the lock: building the seed takes it too
        with self._lock:
            if self.pool is None:
                from judge.harness.parent import launch

                launch.configure(self.sandbox)
                # The pool's wall limit only bounds a lost process; each job's own deadline is
                # enforced by the parent.
                limits = launch.RunLimits(wall_seconds=3600, memory_bytes=self.child_memory_bytes)
                if launch.backend() == "sandbox":
                    self.pool_size = choose_pool_size(self.device, self.gpu_index, self.warm_pool_max)
                    log.info("warm pool: %s", self.pool_size.why)
                size = self.pool_size.size if self.pool_size else 1
                self.pool = launch.make_pool(argv, limits, env, gpu, readable, size=size) or False
            return self.pool or None

    def close_pool(self) -> None:
        """Stop the warm pool's idle process (a config dropped while another one judges on the
        same GPU must not leave a process starting beside that one's timed calls)."""
        with self._lock:
            pool, self.pool = self.pool, None
        if pool:
            pool.close()

    def prepare(self) -> None:
        """Do now what the first job would otherwise wait for: measure the machine ceilings and
        start the warm pool (a worker calls this once at start-up)."""
        from judge.harness.parent.plan import child_argv, child_env

        try:
            self.get_ceilings()
            self.triton_seed_dir()
            gpu = self.gpu_index if self.device == "cuda" else None
            self.child_pool(child_argv(), child_env(self), gpu)
        except Exception:
            log.exception("preparing the judge failed; the first job will try again")

    @classmethod
    def from_env(cls, **overrides: Any) -> JudgeConfig:
        """The config of a worker or a CLI run: the timing switches and the sandbox setting read
        from the environment now (overrides win)."""
        settings: dict[str, Any] = {
            "switches": MethodSwitches.from_env(),
            "sandbox": SandboxSetting.from_env(),
            "warm_pool_max": warm_pool_max_from_env(),
            "parent_memory": parent_memory_from_env(),
        }
        return cls(**{**settings, **overrides})


WARM_POOL_MAX = "GRIDSTRIDE_WARM_POOL_MAX"


def parent_memory_from_env(environ: Mapping[str, str] | None = None) -> bool | None:
    """GRIDSTRIDE_PARENT_MEMORY: 1, the parent owns every call's memory; 0, the child makes
    its own inputs (the older path); unset, the host's default (owned on CPU hosts; on GPU
    hosts not yet, docs/judging.md section 2 says why)."""
    value = (os.environ if environ is None else environ).get("GRIDSTRIDE_PARENT_MEMORY", "")
    if value not in ("", "0", "1"):
        raise ValueError(f"GRIDSTRIDE_PARENT_MEMORY must be 0 or 1, not {value!r}")
    return None if value == "" else value == "1"


def warm_pool_max_from_env(environ: Mapping[str, str] | None = None) -> int | None:
    """The warm pool's configured maximum from GRIDSTRIDE_WARM_POOL_MAX (None: the device's default)."""
    env = os.environ if environ is None else environ
    raw = env.get(WARM_POOL_MAX, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{WARM_POOL_MAX} must be a whole number of at least 1 (warm children per GPU), not {raw!r}")
    return int(raw)


_default: JudgeConfig | None = None
_default_lock = threading.Lock()


def default_config() -> JudgeConfig:
    """The process's config. The first call starts preparing it in the background (ceilings,
    warm pool) unless GRIDSTRIDE_JUDGE_PREPARE=0: a worker builds it at start-up, before jobs."""
    global _default
    with _default_lock:
        if _default is None:
            _default = JudgeConfig.from_env()
            if os.environ.get("GRIDSTRIDE_JUDGE_PREPARE", "1") == "1":
                threading.Thread(target=_default.prepare, name="judge-prepare", daemon=True).start()
        return _default
