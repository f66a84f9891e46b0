"""Every page, in Chromium, at 1440x900 and 390x844, light and dark: no horizontal overflow, no
console errors, and no serious or critical axe-core violations (both sizes; AXE_RUNS). Practice pages,
contest pages (detail, board, results, review), the hiring team's and the candidate's assessment
pages, the password-reset pages, and the error pages (404, and the 403 of an expired form). A
screenshot of each goes to artifacts/e2e/pages/ to be looked at."""

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
# axe at the wide size in both schemes (contrast is a scheme's) and at phone size in light (a
# phone's layout has findings of its own: a table that scrolls sideways must take focus); the
# phone's dark screenshot adds nothing axe would see that these three do not.
AXE_RUNS = {("wide", "light"), ("wide", "dark"), ("phone", "light")}
PASSWORD = "a-long-test-password-9"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # Pages only: a stand-in judge starts in a second (no torch), and nothing here is judged.
    s = Stack(tmp_path_factory.mktemp("sweep"), harness="tests.pipeline.trivial_harness:judge_job")
    # Served as ./gs start serves: DEBUG off (the site's own error pages), static files collected
    # and served by WhiteNoise, cookies over plain http.
    # H200 runs may be chosen (the contest and the assessment are on one); mail stays in memory.
    s.env.update(
        DEBUG="0",
        SECURE_COOKIES="0",
        JUDGE_GPU_MODELS="cpu,h200",
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
    )
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


SWEEPER, CANDIDATE = "sweeper", "candy"


def pages(ids: dict[str, str]) -> dict[str, tuple[str, str | None]]:
    """name -> (path, who is signed in: nobody, the sweeper, or the assessment's candidate)."""
    me, cand = SWEEPER, CANDIDATE
    contest = f"/contests/{ids['contest']}"
    team = f"/orgs/{ids['org']}"
    assessment = f"{team}/a/{ids['assessment']}"
    return {
        "problems": ("/", None),
        "problem-softmax": ("/problems/softmax/", None),
        "problem-paged-attention": ("/problems/paged_attention/", None),
        "leaderboards": ("/leaderboards/", None),
        "board-h200": ("/leaderboards/softmax/?gpu=h200", None),
        "board-cpu": ("/leaderboards/softmax/?gpu=cpu", None),
        "about": ("/about/", None),
        "api-docs": ("/api/docs", None),
        "login": ("/accounts/login/", None),
        "signup": ("/accounts/signup/", None),
        "not-found": ("/no/such/page/", None),
        "contests": ("/contests/", None),
        "profile": ("/users/sweeper/", me),
        "submissions": ("/submissions/", me),
        "tokens": ("/accounts/tokens/", me),
        "submission-accepted": (f"/submissions/{ids['accepted']}/", me),
        "submission-cpu": (f"/submissions/{ids['cpu']}/", me),
        "submission-wrong": (f"/submissions/{ids['wrong']}/", me),
        "submission-compile": (f"/submissions/{ids['compile']}/", me),
        "submissions-filtered": ("/submissions/?problem=softmax&verdict=accepted", me),
        "compare": (f"/submissions/compare/?a={ids['cpu']}&b={ids['accepted']}", me),
        "problems-filtered": ("/?track=memory&difficulty=easy", None),
        "problem-from-submission": (f"/problems/softmax/?from={ids['compile']}", me),
        # Contests: an ended one with its final results, and a result waiting for the organizer.
        "contest-detail": (f"{contest}/", None),
        "contest-board": (f"{contest}/board/", None),
        "contest-results": (f"{contest}/results/", None),
        "contest-review": (f"{contest}/review/", me),
        # The hiring team (the sweeper owns the organization).
        "orgs": ("/orgs/", me),
        "org": (f"{team}/", me),
        "assessment-new": (f"{team}/new/", me),
        "assessment": (f"{assessment}/", me),
        "assessment-edit": (f"{assessment}/edit/", me),
        "candidate-report": (f"{assessment}/c/{ids['candidate']}/", me),
        # The candidate: the invitation link, the rules page, the timed workspace.
        "invitation": (f"/a/invite/{ids['invite']}/", None),
        "invitation-invalid": ("/a/invite/not-a-real-link/", None),
        "assessment-landing": (f"/a/{ids['assessment']}/", cand),
        "assessment-workspace": (f"/a/{ids['assessment']}/p/softmax/", cand),
        # Forgotten password: the form, "sent", the link's form (and a spent link), "done".
        "password-reset": ("/accounts/password/reset/", None),
        "password-reset-sent": ("/accounts/password/reset/sent/", None),
        "password-reset-link": (f"/accounts/password/reset/{ids['reset_uid']}/{ids['reset_token']}/", None),
        "password-reset-bad-link": (f"/accounts/password/reset/{ids['reset_uid']}/0-spent/", None),
        "password-reset-done": ("/accounts/password/reset/done/", None),
        # A form sent without its CSRF cookie (cookies cleared, or the page open too long): the 403.
        "forbidden-expired-form": ("/accounts/login/", None),
    }


# Pages whose own load is an error status, so the browser logs "Failed to load resource".
EXPECTED_STATUS = {"not-found": 404, "invitation-invalid": 404, "forbidden-expired-form": 403}


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


def _context(browser: Any, stack: Stack, viewport: str, scheme: str, who: str | None) -> Any:
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    context.set_default_timeout(20_000)
    if who:
        page = context.new_page()
        page.goto(stack.url + "/accounts/login/")
        page.fill("#id_username", who)
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
            for who in (None, SWEEPER, CANDIDATE):
                context = _context(browser, stack, viewport, scheme, who)
                for name, (path, signed_in) in pages(seeded).items():
                    if signed_in != who or (ONLY and name not in ONLY):
                        continue
                    problems += _check(context, stack.url + path, name, viewport, scheme, folder)
                context.close()
    assert not problems, "\n".join(problems)


def _expire_the_form(page: Any, context: Any) -> None:
    """The login form sent after its CSRF cookie is gone: Django's 403, in the site's style."""
    context.clear_cookies()
    page.fill("#id_username", SWEEPER)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation(wait_until="networkidle"):
        page.click("main button[type=submit]")
    page.wait_for_selector("[data-testid=error-403-csrf]")


def _check(context: Any, url: str, name: str, viewport: str, scheme: str, folder: Path) -> list[str]:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    expected = EXPECTED_STATUS.get(name)

    def on_console(msg: Any) -> None:
        # An error page's own load logs "Failed to load resource: ... 404": that is the page's point.
        if msg.type == "error" and not (expected and str(expected) in msg.text):
            errors.append(f"console: {msg.text}")

    page.on("console", on_console)
    response = page.goto(url, wait_until="networkidle")
    if name == "forbidden-expired-form":
        _expire_the_form(page, context)
    elif response is not None and response.status != (expected or 200):
        errors.append(f"status {response.status}")
    page.wait_for_timeout(150)  # late layout (fonts, KaTeX, the editor)
    label = f"{name} {viewport} {scheme}"
    found = [f"{label}: {e}" for e in errors]
    widths = page.evaluate(OVERFLOW_JS)
    if widths[0] > widths[1] + 1:
        found.append(f"{label}: {widths[0]} px of content in {widths[1]} px ({widths[2]})")
    page.screenshot(path=str(folder / f"{name}-{viewport}-{scheme}.png"), full_page=viewport == "phone")
    if (viewport, scheme) not in AXE_RUNS:
        page.close()
        return found
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
