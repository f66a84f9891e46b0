"""A Triton cache that holds only the judge's own kernels, for every child to start from.

Each sandboxed child begins with an empty private Triton cache, so its warm-up built Triton's C
helpers with gcc (cuda_utils and one launcher per kernel signature) and compiled the judge's
warm-up and launch-cover kernels: 1.1-1.2 s of its ~7.5 s start-up on the H200, paid again by
every job that arrives right behind another. The worker builds those files once, in a trusted
process of its own that runs nothing but the judge's code (`python -m judge.harness.parent.triton_seed
DIR`), and each child copies them into its private cache before its warm-up (child/triton_cache.py). The
child sees the seed read-only; what it writes stays in its own cache, so no submission can put
anything into another child's Triton cache.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

log = logging.getLogger("judge.harness")

BUILD_SECONDS = 300
MAX_SEED_BYTES = 32 << 20
_KERNEL_FILES = ("cover_kernel.py", "warmup_kernel.py", "warmup.py")


def seed_key(gpu_name: str) -> str:
    """Everything the seed's cache keys depend on: versions, the GPU, the judge's kernels."""
    here = Path(__file__).resolve().parent.parent / "child"  # the kernels live with the child's warm-up
    parts = [
        platform.python_version(),
        importlib.metadata.version("triton"),
        importlib.metadata.version("torch"),
        gpu_name,
        *((here / name).read_text(encoding="utf-8") for name in _KERNEL_FILES),
    ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def ensure_seed(root: Path, gpu: int, env: dict[str, str]) -> Path | None:
    """The seed directory for this GPU, built now if missing; None (logged) if it cannot be.

    env: the child's environment additions, so the build compiles with the same settings."""
    import torch

    from judge.harness.parent.launch import subprocess_env  # here: it is the parent's, and heavy

    target = root / seed_key(torch.cuda.get_device_name(0))
    if (target / "done").is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix="building-", dir=root))
    # The environment a child gets (launch.subprocess_env, the child's additions), so the
    # compile options and with them Triton's cache keys are the same.
    child_env = {**subprocess_env(env, str(building), gpu), "TRITON_CACHE_DIR": str(building / "cache")}
    try:
        out = subprocess.run(
            [sys.executable, "-m", "judge.harness.parent.triton_seed", str(building / "cache")],
            env=child_env,
            capture_output=True,
            text=True,
            timeout=BUILD_SECONDS,
        )
        size = sum(p.stat().st_size for p in (building / "cache").rglob("*") if p.is_file())
        if out.returncode != 0 or not size or size > MAX_SEED_BYTES:
            log.warning(
                "the Triton seed was not built (exit %s, %d bytes): %s; children compile the judge's kernels themselves",
                out.returncode,
                size,
                out.stderr[-2000:],
            )
            return None
        (building / "done").write_text("ok\n")
        for path in [building, *building.rglob("*")]:  # readable by the children's uid, whatever the umask
            if not path.is_symlink():
                os.chmod(path, 0o755 if path.is_dir() else 0o644)
        try:
            building.rename(target)  # whole or not at all: children never see half a seed
        except OSError:
            if not (target / "done").is_file():  # not another worker that finished first
                raise
        return target
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("the Triton seed was not built (%s); children compile the judge's kernels themselves", exc)
        return None
    finally:
        shutil.rmtree(building, ignore_errors=True)


def _build(cache_dir: str) -> None:
    """Run in the building process: compile and launch the judge's own kernels as a warm child
    does, so every file Triton caches for them lands in TRITON_CACHE_DIR."""
    import torch

    from judge.harness.child.warmup import _first_triton_kernel

    assert os.environ.get("TRITON_CACHE_DIR") == cache_dir
    torch.cuda.init()
    _first_triton_kernel()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m judge.harness.parent.triton_seed CACHE_DIR", file=sys.stderr)
        return 2
    _build(args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
