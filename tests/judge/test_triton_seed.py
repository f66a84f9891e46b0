"""The Triton cache of the judge's own kernels that children start from (judge/harness/parent/triton_seed.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge.harness.child.triton_cache import SEED_ENV, copy_seed
from judge.harness.parent.config import JudgeConfig
from judge.harness.parent.plan import child_env

ROOT = Path(__file__).resolve().parents[2]

# Compile the warm-up kernel for Hopper (no GPU needed) into one cache, then again from a copy
# made by copy_seed after the original is gone: Triton must find it there (a cache hit), which
# needs the group file's absolute paths rewritten to the copy.
SCRIPT = """
import json, os, shutil, sys
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, compile
from judge.harness.child.triton_cache import copy_seed
from judge.harness.child.warmup_kernel import fill

seed, child = sys.argv[1], sys.argv[2]
hits = []
knobs.compilation.listener = lambda **kw: hits.append(kw["cache_hit"])
src = lambda: ASTSource(fn=fill, signature={"x_ptr": "*fp32", "n": "i32", "value": "fp32", "BLOCK": "constexpr"},
                        constexprs={"BLOCK": 1024})
target = GPUTarget("cuda", 90, 32)
knobs.cache.dir = os.path.join(seed, "cache")
first = compile(src(), target=target, options={"num_warps": 4})
copied = copy_seed(seed, child)
shutil.move(seed, seed + "-gone")  # the build directory's paths no longer exist
knobs.cache.dir = child
second = compile(src(), target=target, options={"num_warps": 4})
print(json.dumps({"hits": hits, "copied": copied, "same": first.asm["cubin"] == second.asm["cubin"]}))
"""


def test_a_copied_seed_is_a_cache_hit_for_the_judges_own_kernel(tmp_path: Path) -> None:
    seed, child = tmp_path / "seed", tmp_path / "child-cache"
    seed.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(seed), str(child)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["hits"] == [False, True] and result["same"] and result["copied"] >= 3, result


def test_group_files_are_rewritten_to_the_copies(tmp_path: Path) -> None:
    built = tmp_path / "seed" / "cache" / "abc123"
    built.mkdir(parents=True)
    (built / "k.cubin").write_bytes(b"\x7fELF")
    group = {"child_paths": {"k.cubin": "/somewhere/else/building-1/cache/abc123/k.cubin"}}
    (built / "__grp__k.json").write_text(json.dumps(group))
    child = tmp_path / "child"
    assert copy_seed(str(tmp_path / "seed"), str(child)) == 2
    rewritten = json.loads((child / "abc123" / "__grp__k.json").read_text())["child_paths"]["k.cubin"]
    assert rewritten == str(child / "abc123" / "k.cubin") and Path(rewritten).read_bytes() == b"\x7fELF"
    assert json.loads((built / "__grp__k.json").read_text()) == group  # the seed itself is untouched


def test_the_warm_child_starts_from_the_seed_when_it_has_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.harness.child.warmup import _steps

    (tmp_path / "seed" / "cache" / "abc").mkdir(parents=True)
    (tmp_path / "seed" / "cache" / "abc" / "cuda_utils.so").write_bytes(b"so")
    monkeypatch.setenv(SEED_ENV, str(tmp_path / "seed"))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "mine"))
    steps = _steps("cpu")
    assert "triton cache seeded" in steps and (tmp_path / "mine" / "abc" / "cuda_utils.so").read_bytes() == b"so"
    monkeypatch.delenv(SEED_ENV)
    assert "triton cache seeded" not in _steps("cpu")  # no seed: not a step that ran


def test_a_cpu_host_has_no_seed_and_the_child_is_told_only_of_a_built_one(tmp_path: Path) -> None:
    config = JudgeConfig(device="cpu")
    assert config.triton_seed_dir() is None and config.child_readable() == []
    assert SEED_ENV not in child_env(config)
    config.triton_seed = tmp_path
    assert child_env(config)[SEED_ENV] == str(tmp_path)
    config.triton_seed = False  # a build that failed
    assert SEED_ENV not in child_env(config)


def test_a_seed_is_built_once_whole_and_readable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from judge.harness.parent import triton_seed

    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=0: "Fake GPU")
    builds: list[list[str]] = []

    def fake_build(argv: list[str], env: dict[str, str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        builds.append(argv)
        cache = Path(env["TRITON_CACHE_DIR"])
        assert argv[-1] == str(cache) and env["CUDA_VISIBLE_DEVICES"] == "3" and env["GRIDSTRIDE_DEVICE"] == "cuda"
        (cache / "k1").mkdir(parents=True)
        (cache / "k1" / "cuda_utils.so").write_bytes(b"so")
        os.chmod(cache / "k1" / "cuda_utils.so", 0o600)  # as a strict umask would leave it
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(triton_seed.subprocess, "run", fake_build)
    seed = triton_seed.ensure_seed(tmp_path, 3, {"GRIDSTRIDE_DEVICE": "cuda"})
    assert seed is not None and (seed / "done").is_file() and len(builds) == 1
    assert (seed / "cache" / "k1" / "cuda_utils.so").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == [seed.name]  # no half-built directory left
    assert triton_seed.ensure_seed(tmp_path, 3, {"GRIDSTRIDE_DEVICE": "cuda"}) == seed and len(builds) == 1


def test_a_failed_build_gives_no_seed_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from judge.harness.parent import triton_seed

    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=0: "Fake GPU")
    # The real build on a host without a GPU: CUDA cannot start, the build exits non-zero.
    assert triton_seed.ensure_seed(tmp_path, 0, {"GRIDSTRIDE_DEVICE": "cuda"}) is None
    assert list(tmp_path.iterdir()) == []


def test_a_gpu_workers_pool_gets_the_seed_readable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # On a GPU host the pool is made under the config's lock and needs the seed, whose first
    # build takes that lock too: it must be built first, not deadlock (a CPU host never builds).
    import threading

    from judge.harness.parent import launch, triton_seed

    monkeypatch.setattr(triton_seed, "ensure_seed", lambda root, gpu, env: tmp_path)
    made: list[list[str] | None] = []
    monkeypatch.setattr(
        launch, "make_pool", lambda argv, limits, env, gpu, readable=None, size=1: made.append(readable) or "pool"
    )
    config = JudgeConfig(device="cuda", gpu_index=0)
    pools: list[object] = []
    worker = threading.Thread(target=lambda: pools.append(config.child_pool(["child"], {}, 0)), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "child_pool deadlocked on the config's lock"
    assert pools == ["pool"] and made == [[str(tmp_path)]]
