"""The optimization ladder on the problem page, in Chromium at 1440x900 and 390x844: hidden (not in
the page at all) until the user solves the problem or gives up, then shown beside their result:
rungs with figures, editorial and read-only highlighted code, their best among the rungs on the
roofline. No sideways overflow, no console errors, no serious axe violation in the ladder.
Screenshots go to var/screenshots/ladder/ to be looked at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stack import ROOT, Stack
from test_every_page import AXE, OVERFLOW_JS, PASSWORD, VIEWPORTS

pytestmark = pytest.mark.e2e

SHOTS = ROOT / "var" / "screenshots" / "ladder"
PAGE = "/problems/sgemm/"
# Text of the real sgemm ladder that the page must not carry before it opens.
RUNG_TITLES = ["Column register blocking", "8 x 8 register blocking"]
RUNG_STEPS = ["one shared load of b feeds 8 FMAs", "128 x 128 block tiles"]
RUNG_CODE = "reference_kernels/sgemm/expert_cuda.cu"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # A stand-in judge (accepts in a moment, no torch); served as ./gs start serves (DEBUG off).
    s = Stack(tmp_path_factory.mktemp("ladder"), harness="tests.pipeline.trivial_harness:judge_job")
    s.env.update(DEBUG="0", SECURE_COOKIES="0")
    (s.folder / "var").mkdir(parents=True, exist_ok=True)
    s.manage("collectstatic", "--no-input", "-v0")
    try:
        s.start()
        s.manage("shell", "-c", (ROOT / "tests" / "e2e" / "seed_ladder.py").read_text())
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


def open_as(
    browser: Any, stack: Stack, username: str, viewport: str, scheme: str = "light"
) -> tuple[Any, Any, list[str]]:
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.goto(stack.url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_selector("[data-testid=nav-user]")
    page.goto(stack.url + PAGE, wait_until="networkidle")
    return context, page, errors


def no_overflow(page: Any, label: str) -> None:
    widths = page.evaluate(OVERFLOW_JS)
    assert widths[0] <= widths[1] + 1, f"{label}: {widths[0]} px of content in {widths[1]} px ({widths[2]})"


def axe_in_ladder(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "() => axe.run({include: [['#ladder']]},"
        " {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})"
    )
    return [
        f"axe {v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def assert_hidden(page: Any) -> None:
    html = page.content()
    assert page.is_visible("[data-testid=ladder-locked]") or page.query_selector("[data-testid=ladder-locked]")
    assert page.query_selector("[data-testid=ladder]") is None
    for text in [*RUNG_TITLES, *RUNG_STEPS, RUNG_CODE]:
        assert text not in html, text


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_ladder_beside_a_solved_problem(stack: Stack, browser: Any, shots: Path, viewport: str) -> None:
    context, page, errors = open_as(browser, stack, "climber", viewport)
    if viewport == "phone":
        page.click("[data-testid=tab-result]")
    page.wait_for_selector("[data-testid=ladder]")
    titles = [h.inner_text() for h in page.query_selector_all("li.rung h3")]
    assert len(titles) == 4 and all(t in h for t, h in zip(RUNG_TITLES, titles[2:], strict=True))
    assert "faster than 2 rungs of 4" in page.inner_text("[data-testid=ladder-yours]")
    assert page.locator("[data-testid=ladder-roofline] .rf-point.rf-rung").count() == 12
    assert page.locator("[data-testid=ladder-roofline] .rf-point.rf-yours").count() == 3
    page.evaluate("() => document.getElementById('ladder').scrollIntoView({block: 'start'})")
    page.wait_for_timeout(150)
    page.screenshot(path=str(shots / f"ladder-{viewport}-standings.png"))
    page.evaluate("() => document.querySelector('[data-testid=ladder-roofline]').scrollIntoView({block: 'start'})")
    page.wait_for_timeout(150)
    page.screenshot(path=str(shots / f"ladder-{viewport}-chart.png"))
    # A rung's code: a read-only editor, highlighted like the site's editor.
    second = page.locator("li.rung").nth(1)
    second.locator("details.rung-code summary").click()
    editor = second.locator(".ladder-code .cm-content")
    editor.wait_for()
    assert editor.get_attribute("contenteditable") == "false"
    # Highlighted tokens: CodeMirror's parser colours the code after the editor appears (a moment
    # later on a loaded host), so the count is awaited, not read once.
    page.wait_for_function(
        "el => el.querySelectorAll('.cm-line span[class]').length > 5",
        arg=second.locator(".ladder-code").element_handle(),
        timeout=10_000,
    )
    assert "__global__" in editor.inner_text()
    second.locator("details.rung-detail summary").click()
    page.evaluate("() => document.getElementById('rung-2').scrollIntoView({block: 'start'})")
    page.wait_for_timeout(150)
    page.screenshot(path=str(shots / f"ladder-{viewport}-rung.png"))
    page.evaluate("() => document.querySelector('#rung-2 .ladder-code').scrollIntoView({block: 'start'})")
    page.wait_for_timeout(150)
    page.screenshot(path=str(shots / f"ladder-{viewport}-code.png"))
    no_overflow(page, viewport)
    if viewport == "wide":
        assert axe_in_ladder(page) == []
    assert errors == []
    context.close()


def test_giving_up_opens_the_ladder_after_a_confirmation(stack: Stack, browser: Any, shots: Path) -> None:
    context, page, errors = open_as(browser, stack, "stuck", "phone")
    assert_hidden(page)
    page.click("[data-testid=tab-result]")
    page.click("details.give-up summary")
    page.screenshot(path=str(shots / "ladder-phone-locked.png"))
    no_overflow(page, "locked")
    page.click("[data-testid=give-up]")  # not confirmed: the browser keeps the form
    assert page.query_selector("[data-testid=ladder]") is None
    page.check("[data-testid=give-up-confirm]")
    page.click("[data-testid=give-up]")
    page.wait_for_selector("[data-testid=ladder]")
    assert page.is_visible("[data-testid=ladder]")  # back on the Result tab (#ladder)
    assert "you chose to see it" in page.inner_text("[data-testid=ladder-opened]")
    assert "No fully judged run of yours yet" in page.inner_text("[data-testid=ladder-yours]")
    assert errors == []
    context.close()


def test_an_accepted_run_shows_the_ladder_in_place(stack: Stack, browser: Any, shots: Path) -> None:
    context, page, errors = open_as(browser, stack, "newcomer", "wide")
    assert_hidden(page)
    page.click("#run")
    page.wait_for_selector("#result [data-testid=report][data-verdict=accepted]", timeout=120_000)
    page.wait_for_selector("[data-testid=ladder]")
    assert page.query_selector("[data-testid=ladder-locked]") is None
    page.locator("li.rung").first.locator("details.rung-code summary").click()
    page.locator("li.rung").first.locator(".ladder-code .cm-content").wait_for()
    page.screenshot(path=str(shots / "ladder-wide-after-run.png"))
    assert errors == []
    context.close()


def test_the_ladder_in_the_dark_scheme(stack: Stack, browser: Any, shots: Path) -> None:
    context, page, errors = open_as(browser, stack, "climber", "wide", "dark")
    page.locator("li.rung").nth(3).locator("details.rung-code summary").click()
    page.locator("#rung-4 .ladder-code .cm-content").wait_for()
    page.evaluate("() => document.querySelector('[data-testid=ladder-roofline]').scrollIntoView({block: 'start'})")
    page.wait_for_timeout(150)
    page.screenshot(path=str(shots / "ladder-wide-dark-chart.png"))
    page.evaluate("() => document.querySelector('#rung-4 .ladder-code').scrollIntoView({block: 'center'})")
    page.wait_for_timeout(150)
    page.screenshot(path=str(shots / "ladder-wide-dark-code.png"))
    assert axe_in_ladder(page) == []
    assert errors == []
    context.close()
