"""Sandbox tests: `gpu`-marked tests run only where CUDA is available."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.sandbox.helpers import assert_next_job_is_judged_correctly


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


@pytest.fixture
def then_an_ordinary_job_still_works() -> Iterator[None]:
    yield
    assert_next_job_is_judged_correctly()
