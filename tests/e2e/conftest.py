"""Browser tests: the real stack as processes and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stack import ROOT, Stack

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "artifacts" / "e2e"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium; CI installs it)"
    )
    for item in items:
        if "e2e" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # E2E_HARNESS=tests.pipeline.trivial_harness:judge_job judges with the pipeline's stand-in
    # instead of the real harness (fast, no torch); the default is the real CPU judge.
    s = Stack(tmp_path_factory.mktemp("stack"), harness=os.environ.get("E2E_HARNESS", ""))
    try:
        s.start()
        yield s
    except BaseException:
        print(s.logs())
        raise
    finally:
        s.stop()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for log in s.folder.glob("*.log"):
            shutil.copy(log, ARTIFACTS / log.name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
