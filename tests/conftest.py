"""Shared by both suites: `gpu`-marked tests run only where CUDA is available, else skip."""

from __future__ import annotations

import pytest


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:  # the web environment has no torch
        return False
    return torch.cuda.is_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (runs on the GPU host)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
