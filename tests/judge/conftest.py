"""Judge-side tests; tests/conftest.py skips the `gpu`-marked ones on hosts without CUDA."""

from __future__ import annotations

import pytest


@pytest.fixture
def one_call_a_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """One timed call a batch, so that a timing holds exactly the calls its policy asks for: the
    parent otherwise sizes batches from its clock (parent/shared_calls.py) and a fast host fits
    several calls in one."""
    from judge.harness.parent import shared_calls

    monkeypatch.setattr(shared_calls, "BATCH_MAX", 1)
