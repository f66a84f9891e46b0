"""A contest in a real browser against the real stack (CPU judge): an organizer creates it, two
participants register and submit, the board freezes, the contest ends, the final re-run judges
each best submission again on fresh inputs and hidden shapes, the submission that special-cases
the public sizes goes to review and is invalidated, and the final results show the rest.

The test moves the contest's times (through manage.py, as an operator could) instead of waiting
for the clock. Screenshots go to artifacts/e2e/contest-*.png."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from stack import ROOT, Stack

pytestmark = pytest.mark.e2e

PASSWORD = "an-e2e-password-31"
SLUG = "e2e-cup"
HONEST = (ROOT / "problems" / "vector_add" / "solutions" / "pytorch_ok.py").read_text()
# Exact on every public size (the correctness cases and both benchmark sets), wrong on any other:
# the live judging accepts it; the final re-run's hidden shape does not.
PLANTED = """import torch

PUBLIC = {1, 2, 3, 127, 1000, 4099, 8191, 100_003, 50_000_017, 65_536, 1_048_576, 16_777_216, 67_108_864, 268_435_456}


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    if n in PUBLIC:
        torch.add(a, b, out=c)
    else:
        torch.add(a, a, out=c)
"""
JUDGE_TIMEOUT_S = 300


def shot(page: Any, artifacts: Path, name: str) -> None:
    page.screenshot(path=str(artifacts / f"contest-{name}.png"), full_page=True)


def move_contest(stack: Stack, *, ends_in_minutes: float) -> None:
    stack.manage(
        "shell",
        "-c",
        "from datetime import timedelta; from django.utils import timezone; "
        "from gridstride.contests.models import Contest; "
        f"Contest.objects.filter(slug={SLUG!r}).update(ends_at=timezone.now() + timedelta(minutes={ends_in_minutes}))",
    )


@pytest.fixture(scope="module")
def users(stack: Stack) -> list[str]:
    names = ["olga", "alice", "bob"]
    stack.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; U = get_user_model(); "
        + "; ".join(f"U.objects.create_user({n!r}, password={PASSWORD!r})" for n in names),
    )
    return names


def login(browser: Any, stack: Stack, username: str) -> Any:
    context = browser.new_context(viewport={"width": 1360, "height": 900}, color_scheme="light")
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{stack.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("[data-testid=nav-user]")
    return page


def replace_code(page: Any, text: str) -> None:
    page.click(".cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def submit_and_wait(page: Any, stack: Stack, source: str) -> str:
    page.goto(f"{stack.url}/contests/{SLUG}/problems/A/")
    page.wait_for_selector(".cm-content")
    page.select_option("#language", "pytorch")
    replace_code(page, source)
    page.click("#submit")
    report = page.wait_for_selector("#result [data-testid=report]", timeout=JUDGE_TIMEOUT_S * 1000)
    return str(report.get_attribute("data-verdict"))


def reload_until(page: Any, url: str, selector: str, text: str, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while True:
        page.goto(url)
        found = page.query_selector(selector)
        content = found.inner_text() if found else ""
        if text in content:
            return content
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} never said {text!r}; last: {content!r}")
        page.wait_for_timeout(2000)


@pytest.fixture(scope="module")
def pages(stack: Stack, browser: Any, users: list[str]) -> Iterator[dict[str, Any]]:
    opened = {name: login(browser, stack, name) for name in users}
    yield opened
    for p in opened.values():
        p.context.close()


def test_a_contest_from_creation_to_final_results(stack: Stack, pages: dict[str, Any], artifacts: Path) -> None:
    olga, alice, bob = pages["olga"], pages["alice"], pages["bob"]

    # The organizer creates the contest: vector_add on the CPU judge, a 30-minute freeze.
    olga.goto(f"{stack.url}/contests/")
    olga.click("[data-testid=new-contest]")
    now = datetime.now(UTC)
    olga.fill("#id_title", "E2E Cup")
    olga.fill("#id_slug", SLUG)
    olga.fill("#id_rules", "One kernel, **fastest wins**. <script>alert(1)</script>")
    olga.fill("#id_starts_at", (now - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M"))
    olga.fill("#id_ends_at", (now + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"))
    olga.fill("#id_freeze_minutes", "30")
    olga.check("label:has-text('Vector Addition') input[name=problems]")
    olga.get_by_label("CPU (unranked judge)").check()
    # CPU timings of one kernel vary by multiples under load (a 100% tolerance sent an honest
    # result to review in a loaded run): the check that matters here is the hidden shape's
    # correctness, so the timing tolerance is wide open.
    olga.fill("#id_rerun_tolerance_pct", "1000")
    shot(olga, artifacts, "01-create")
    olga.click("button:has-text('Create contest')")
    olga.wait_for_selector("[data-testid=contest-phase]")
    assert "running" in olga.inner_text("[data-testid=contest-phase]")
    assert olga.query_selector(".statement strong") and not olga.query_selector(".statement script")
    shot(olga, artifacts, "02-contest-page")

    # Two participants register and submit through the contest's editor.
    for page in (alice, bob):
        page.goto(f"{stack.url}/contests/{SLUG}/")
        page.click("[data-testid=register-form] button")
        page.wait_for_selector("[data-testid=my-participation]")
    shot(alice, artifacts, "03-registered")
    assert submit_and_wait(alice, stack, HONEST) == "accepted", alice.inner_text("#result")
    assert submit_and_wait(bob, stack, PLANTED) == "accepted", bob.inner_text("#result")
    shot(bob, artifacts, "04-planted-accepted-live")
    alice.goto(f"{stack.url}/contests/{SLUG}/board/")
    board = alice.inner_text("[data-testid=contest-board]")
    assert "alice" in board and "bob" in board
    shot(alice, artifacts, "05-live-board")

    # The freeze: others see the board as it was; the organizer sees it live.
    move_contest(stack, ends_in_minutes=29.5)  # the freeze began half a minute ago
    alice.goto(f"{stack.url}/contests/{SLUG}/board/")
    assert alice.query_selector("[data-testid=frozen-notice]")
    shot(alice, artifacts, "06-frozen-board")
    olga.goto(f"{stack.url}/contests/{SLUG}/board/")
    assert olga.query_selector("[data-testid=organizer-unfrozen]")

    # The end, and the final re-run (the organizer starts it instead of waiting for the sweep).
    move_contest(stack, ends_in_minutes=0)
    olga.goto(f"{stack.url}/contests/{SLUG}/")
    olga.click("[data-testid=finalize]")
    progress = reload_until(
        olga, f"{stack.url}/contests/{SLUG}/results/", "[data-testid=final-progress]", "finished", JUDGE_TIMEOUT_S * 2
    )
    assert "1 under review" in progress
    shot(olga, artifacts, "07-results-with-review")

    # The review: the planted submission failed its hidden shape; the organizer invalidates it.
    olga.goto(f"{stack.url}/contests/{SLUG}/review/")
    item = olga.wait_for_selector("[data-testid=review-item][data-participant=bob]")
    assert "wrong answer" in item.inner_text().lower()
    shot(olga, artifacts, "08-review")
    item.query_selector("[data-testid=reason]").fill(
        "Wrong on the hidden shape: the code special-cases the public sizes."
    )
    item.query_selector("[data-testid=invalidate]").click()
    olga.wait_for_selector("text=Invalidated")
    assert alice.goto(f"{stack.url}/contests/{SLUG}/review/").status == 404  # organizers only

    # The final results list alice only; bob reads why and answers.
    alice.goto(f"{stack.url}/contests/{SLUG}/results/")
    final = alice.inner_text("[data-testid=final-results]")
    assert "alice" in final and "bob" not in final
    shot(alice, artifacts, "09-final-results")
    bob.goto(f"{stack.url}/contests/{SLUG}/mine/")
    assert "special-cases the public sizes" in bob.inner_text("[data-testid=invalidation-reason]")
    shot(bob, artifacts, "10-bob-invalidated")
    for page in (olga, alice, bob):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
