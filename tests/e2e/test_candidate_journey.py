"""A new candidate, in a real browser against the real stack: signs up, opens softmax, switches to
Triton, writes a kernel, runs it, submits it, watches it judged by the CPU judge, sees the
roofline chart and finds themself on the (CPU, unranked) leaderboard. Screenshots go to
artifacts/e2e/."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stack import ROOT, Stack

pytestmark = pytest.mark.e2e

USERNAME = "grace"
PASSWORD = "an-e2e-password-31"
KERNEL = (ROOT / "problems" / "softmax" / "solutions" / "triton_ok.py").read_text()
JUDGE_TIMEOUT_MS = 240_000


@pytest.fixture(scope="module")
def page(stack: Stack, browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="light")
    context.set_default_timeout(20_000)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.errors = errors  # type: ignore[attr-defined]
    yield p
    context.close()


def shot(page: Any, artifacts: Path, name: str, full: bool = False) -> None:
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=full)


def editor_text(page: Any) -> str:
    return str(page.eval_on_selector("#editor-host", "el => el.gridstrideEditor.getValue()"))


def replace_code(page: Any, text: str) -> None:
    page.click(".cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def follow_result(page: Any) -> tuple[list[str], str]:
    """Watch the result panel until a report appears; return the stage texts seen and the verdict."""
    seen: list[str] = []
    deadline = time.monotonic() + JUDGE_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        report = page.query_selector("#result [data-testid=report]")
        if report:
            return seen, str(report.get_attribute("data-verdict"))
        stage = page.query_selector("#result .stage-now")
        if stage:
            text = stage.inner_text().strip()
            if text and (not seen or seen[-1] != text):
                seen.append(text)
        page.wait_for_timeout(100)
    raise AssertionError(f"no report after {JUDGE_TIMEOUT_MS / 1000:.0f} s; stages seen: {seen}")


def test_a_new_candidate_goes_from_sign_up_to_the_leaderboard(stack: Stack, page: Any, artifacts: Path) -> None:
    # Sign up from the problem list.
    page.goto(stack.url + "/")
    page.click("text=Sign up")
    page.fill("#id_username", USERNAME)
    page.fill("#id_email", "grace@example.com")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    shot(page, artifacts, "01-sign-up")
    page.click("button:has-text('Create account')")
    page.wait_for_selector("[data-testid=nav-user]")
    assert page.inner_text("[data-testid=nav-user]") == USERNAME
    shot(page, artifacts, "02-problems", full=True)

    # Open softmax; the statement, its math and the editor are there.
    page.click("a:has-text('Row-wise Softmax')")
    page.wait_for_selector(".cm-content")
    assert page.is_visible("#statement") and page.is_visible("text=Benchmarks and speed of light")
    assert page.query_selector("#statement .katex"), "math in the statement is typeset"

    # Switch languages: CUDA loads the CUDA starter, Triton the Triton one.
    page.select_option("#language", "cuda")
    assert "__global__" in editor_text(page)
    page.select_option("#language", "triton")
    assert "import triton" in editor_text(page)

    # Write a kernel; the draft autosaves and survives a reload.
    replace_code(page, KERNEL)
    page.wait_for_selector("#save-state:has-text('draft saved')")
    page.reload()
    page.wait_for_selector(".cm-content")
    assert page.input_value("#language") == "triton"
    assert editor_text(page).strip() == KERNEL.strip()
    shot(page, artifacts, "03-editor")

    # Run (correctness cases), by the keyboard shortcut.
    page.click(".cm-content")
    page.keyboard.press("Control+Enter")
    stages, verdict = follow_result(page)
    assert verdict == "accepted", page.inner_text("#result")
    assert stages, "the stage line showed progress before the report"
    assert all(re.search(r"[a-z]", s) for s in stages)  # names, never a bare spinner
    assert page.is_visible("#result [data-testid=unranked]")
    assert "cases passed" in page.inner_text("#result")
    shot(page, artifacts, "04-run-accepted")

    # Submit (full judging) with the button; watch it judged.
    page.click("#submit")
    stages, verdict = follow_result(page)
    assert verdict == "accepted", page.inner_text("#result")
    result = page.inner_text("#result")
    assert "unranked: CPU interpreter" in result
    assert ("Timings" in result and "µs" in result) or "ms" in result
    page.wait_for_selector("#result svg.roofline")
    assert page.query_selector("#result svg.roofline .rf-submission"), "this submission is on the chart"
    page.eval_on_selector("#result svg.roofline", "el => el.scrollIntoView()")
    shot(page, artifacts, "05-submit-roofline")

    # The submission's own page, then the leaderboard.
    with page.expect_navigation():
        page.click("[data-testid=submission-link]")
    page.wait_for_selector("[data-testid=report]")
    assert page.query_selector("[data-testid=source]")
    shot(page, artifacts, "06-submission-page", full=True)
    page.click("[data-testid=board-link]")
    page.wait_for_selector("[data-testid=leaderboard]")
    assert "Unranked practice runs" in page.inner_text("[data-testid=unranked-heading]")
    mine = page.inner_text("[data-testid=my-row]")
    assert USERNAME in mine and "(you)" in mine
    shot(page, artifacts, "07-leaderboard", full=True)

    # The profile counts the problem as solved.
    page.click("[data-testid=nav-user]")
    assert "Row-wise Softmax" in page.inner_text("main")
    assert not page.errors, page.errors  # type: ignore[attr-defined]


def test_a_compile_error_links_to_the_line_in_the_editor(stack: Stack, page: Any, artifacts: Path) -> None:
    page.goto(stack.url + "/problems/softmax/")
    page.wait_for_selector(".cm-content")
    broken = KERNEL.replace("def solve(", "def solve(:\n", 1)
    replace_code(page, broken)
    page.click("#run")
    _, verdict = follow_result(page)
    assert verdict in ("compile_error", "runtime_error"), page.inner_text("#result")
    link = page.query_selector("#result a.line-link")
    assert link, page.inner_text("#result")
    line = int(link.get_attribute("data-line"))
    link.click()
    cursor_line = page.eval_on_selector(
        "#editor-host",
        "el => { const s = el.gridstrideEditor.view.state; return s.doc.lineAt(s.selection.main.head).number; }",
    )
    assert cursor_line == line
    shot(page, artifacts, "08-compile-error")


def test_the_pages_in_dark_mode(stack: Stack, browser: Any, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="dark")
    p = context.new_page()
    p.goto(stack.url + "/problems/softmax/")
    p.wait_for_selector(".cm-content")
    bg = p.eval_on_selector("body", "el => getComputedStyle(el).backgroundColor")
    assert bg != "rgb(255, 255, 255)"
    shot(p, artifacts, "09-dark-problem")
    p.goto(stack.url + "/leaderboards/softmax/?gpu=cpu")
    shot(p, artifacts, "10-dark-leaderboard", full=True)
    context.close()
