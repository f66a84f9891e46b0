"""GPU suite: every test here needs CUDA; on a host without it they are skipped, not failed."""

from __future__ import annotations

import pytest


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (runs on the GPU host)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
