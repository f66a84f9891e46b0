"""Every page, in Chromium, at 1440x900 and 390x844, light and dark: no horizontal overflow, no
console errors, and (light and dark, wide) no serious or critical axe-core violations. A screenshot
of each goes to artifacts/e2e/pages/ to be looked at."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stack import ROOT, Stack

pytestmark = pytest.mark.e2e

AXE = ROOT / "tests" / "e2e" / "vendor" / "axe-core" / "axe.min.js"
VIEWPORTS = {"wide": (1440, 900), "phone": (390, 844)}
SCHEMES = ("light", "dark")
PASSWORD = "a-long-test-password-9"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # Pages only: a stand-in judge starts in a second (no torch), and nothing here is judged.
    s = Stack(tmp_path_factory.mktemp("sweep"), harness="tests.pipeline.trivial_harness:judge_job")
    # Served as ./gs start serves: DEBUG off (the site's own error pages), static files collected
    # and served by WhiteNoise, cookies over plain http.
    s.env.update(DEBUG="0", SECURE_COOKIES="0")
    (s.folder / "var").mkdir(parents=True, exist_ok=True)
    s.manage("collectstatic", "--no-input", "-v0")
    try:
        s.start()
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def seeded(stack: Stack) -> dict[str, str]:
    code = (ROOT / "tests" / "e2e" / "seed_sweep.py").read_text()
    out = stack.manage("shell", "-c", code)
    return json.loads(out.strip().splitlines()[-1])


def pages(ids: dict[str, str]) -> dict[str, tuple[str, bool]]:
    """name -> (path, needs a login)."""
    return {
        "problems": ("/", False),
        "problem-softmax": ("/problems/softmax/", False),
        "problem-paged-attention": ("/problems/paged_attention/", False),
        "leaderboards": ("/leaderboards/", False),
        "board-h200": ("/leaderboards/softmax/?gpu=h200", False),
        "board-cpu": ("/leaderboards/softmax/?gpu=cpu", False),
        "about": ("/about/", False),
        "api-docs": ("/api/docs", False),
        "login": ("/accounts/login/", False),
        "signup": ("/accounts/signup/", False),
        "not-found": ("/no/such/page/", False),
        "contests": ("/contests/", False),
        "profile": ("/users/sweeper/", True),
        "submissions": ("/submissions/", True),
        "tokens": ("/accounts/tokens/", True),
        "submission-accepted": (f"/submissions/{ids['accepted']}/", True),
        "submission-cpu": (f"/submissions/{ids['cpu']}/", True),
        "submission-wrong": (f"/submissions/{ids['wrong']}/", True),
        "submission-compile": (f"/submissions/{ids['compile']}/", True),
        "submissions-filtered": ("/submissions/?problem=softmax&verdict=accepted", True),
        "compare": (f"/submissions/compare/?a={ids['cpu']}&b={ids['accepted']}", True),
        "problems-filtered": ("/?track=memory&difficulty=easy", False),
        "problem-from-submission": (f"/problems/softmax/?from={ids['compile']}", True),
    }


# The page's width against the window's, and the first elements that stick out past the window
# without a scrolling ancestor to hold them (the ones that make the page scroll sideways).
OVERFLOW_JS = """() => {
  const limit = document.documentElement.clientWidth + 1;
  const held = (e) => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
    }
    return false;
  };
  const out = [...document.querySelectorAll('body *')].filter(e =>
    e.getBoundingClientRect().right > limit && getComputedStyle(e).position !== 'fixed' && !held(e));
  return [document.documentElement.scrollWidth, document.documentElement.clientWidth,
          out.slice(0, 4).map(e => e.tagName + '.' + e.className + '#' + e.id)];
}"""
ONLY = [n for n in os.environ.get("SWEEP_ONLY", "").split(",") if n]


def _context(browser: Any, stack: Stack, viewport: str, scheme: str, logged_in: bool) -> Any:
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    context.set_default_timeout(20_000)
    if logged_in:
        page = context.new_page()
        page.goto(stack.url + "/accounts/login/")
        page.fill("#id_username", "sweeper")
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_selector("[data-testid=nav-user]")
        page.close()
    return context


def test_every_page_fits_the_screen_without_errors_and_passes_axe(
    stack: Stack, seeded: dict[str, str], browser: Any, artifacts: Path
) -> None:
    folder = artifacts / "pages"
    folder.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    for viewport in VIEWPORTS:
        for scheme in SCHEMES:
            for logged_in in (False, True):
                context = _context(browser, stack, viewport, scheme, logged_in)
                for name, (path, needs_login) in pages(seeded).items():
                    if needs_login != logged_in or (ONLY and name not in ONLY):
                        continue
                    problems += _check(context, stack.url + path, name, viewport, scheme, folder)
                context.close()
    assert not problems, "\n".join(problems)


def _check(context: Any, url: str, name: str, viewport: str, scheme: str, folder: Path) -> list[str]:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    expected_404 = name == "not-found"

    def on_console(msg: Any) -> None:
        # The 404 page's own load logs "Failed to load resource: ... 404": that is the page's point.
        if msg.type == "error" and not (expected_404 and "404" in msg.text):
            errors.append(f"console: {msg.text}")

    page.on("console", on_console)
    page.goto(url, wait_until="networkidle")
    page.wait_for_timeout(150)  # late layout (fonts, KaTeX, the editor)
    label = f"{name} {viewport} {scheme}"
    found = [f"{label}: {e}" for e in errors]
    widths = page.evaluate(OVERFLOW_JS)
    if widths[0] > widths[1] + 1:
        found.append(f"{label}: {widths[0]} px of content in {widths[1]} px ({widths[2]})")
    page.screenshot(path=str(folder / f"{name}-{viewport}-{scheme}.png"), full_page=viewport == "phone")
    if viewport == "wide":
        page.add_script_tag(path=str(AXE))
        # Swagger UI's own widget (third-party markup inside /api/docs) is left out; the page around it is checked.
        result = page.evaluate(
            "() => axe.run({exclude: [['#swagger-ui']]},"
            " {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})"
        )
        for v in result["violations"]:
            if v["impact"] in ("serious", "critical"):
                targets = [n["target"] for n in v["nodes"][:3]]
                why = [c.get("message", "") for c in v["nodes"][0].get("any", [])][:1]
                found.append(f"{label}: axe {v['id']} ({v['impact']}): {v['help']} at {targets} {why}")
    page.close()
    return found
