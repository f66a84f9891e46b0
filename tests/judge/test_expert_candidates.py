"""bench/expert_kernels.py loads kernels that may replace an expert from bench/expert_candidates
(a Triton module and a CUDA file), and reports one that does not build as an error row."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge import spec

ROOT = Path(__file__).resolve().parents[2]


def test_candidates_are_loaded_beside_the_experts_and_a_broken_one_is_an_error(tmp_path: Path) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    from bench import expert_kernels

    folder = tmp_path / "vector_add"
    folder.mkdir()
    shutil.copy(ROOT / "problems/vector_add/solutions/triton_ok.py", folder / "tiled.py")
    shutil.copy(ROOT / "problems/vector_add/solutions/cuda_ok.cu", folder / "grid_stride.cu")
    (folder / "broken.cu").write_text("this is not C++\n")
    problem = spec.load("vector_add")
    ref = expert_kernels.load_module(problem.reference_dir / "reference.py", "reference_vector_add")
    kernels = {k.name: k for k in expert_kernels.kernels_for(problem, ref, tmp_path, candidates=tmp_path)}
    assert {"expert_triton", "expert_cuda", "torch baseline"} <= set(kernels)
    assert kernels["candidate tiled"].solve is not None and not kernels["candidate tiled"].error
    assert kernels["candidate grid_stride"].solve is not None and not kernels["candidate grid_stride"].error
    assert kernels["candidate broken"].solve is None and "nvcc failed" in kernels["candidate broken"].error
    # Without the folder (or without the problem's subfolder) only the experts and the baseline.
    plain = {k.name for k in expert_kernels.kernels_for(problem, ref, tmp_path, candidates=tmp_path / "none")}
    assert not any(name.startswith("candidate") for name in plain)
