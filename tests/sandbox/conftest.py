"""Sandbox tests (tests/conftest.py skips the `gpu`-marked ones on hosts without CUDA)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.sandbox.helpers import assert_next_job_is_judged_correctly


@pytest.fixture
def then_an_ordinary_job_still_works() -> Iterator[None]:
    yield
    assert_next_job_is_judged_correctly()
