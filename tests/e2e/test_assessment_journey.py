"""A hiring assessment end to end, in Chromium against the real stack (site, web worker with beat,
CPU judge): a team creates an assessment and invites a candidate; the candidate opens the email's
link, creates an account, reads the rules, starts, runs, submits a wrong and then a correct kernel,
and is closed at the deadline; the team reads the report, plays the code back and exports CSV.
Screenshots in artifacts/e2e/assessment-*.png, light and dark."""

from __future__ import annotations

import csv
import io
import quopri
import re
import time
from pathlib import Path
from typing import Any

import pytest
from stack import ROOT, Stack

pytestmark = pytest.mark.e2e

PASSWORD = "an-e2e-password-31"
OK = (ROOT / "problems/vector_add/solutions/triton_ok.py").read_text()
WRONG = (ROOT / "problems/vector_add/solutions/triton_reads_b_shifted.py").read_text()
DURATION_MIN = 3
JUDGE_TIMEOUT_S = 240
DEADLINE_IN_S = 10
BRING_THE_DEADLINE_CLOSE = f"""
from datetime import timedelta
from django.utils import timezone
from gridstride.assessments.actions import deadline_of
from gridstride.assessments.models import Candidate
seat = Candidate.objects.get(user__username="cand")
now = timezone.now()
seat.started_at -= deadline_of(seat, now) - now - timedelta(seconds={DEADLINE_IN_S})
seat.save(update_fields=["started_at"])
"""


def shot(page: Any, artifacts: Path, name: str, full: bool = True) -> None:
    page.screenshot(path=str(artifacts / f"assessment-{name}.png"), full_page=full)


def sign_up(page: Any, url: str, username: str) -> None:
    page.goto(url + "/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.com")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("button:has-text('Create account')")
    page.wait_for_selector("[data-testid=nav-user]")


def invitation_link(stack: Stack) -> str:
    log = (stack.folder / "site.log").read_text(errors="replace")
    text = quopri.decodestring(log.encode()).decode(errors="replace")
    found = re.findall(r"http://[^\s]+/a/invite/[^\s/]+/", text)
    assert found, "the console mail backend printed the invitation"
    return found[-1]


def paste(page: Any, text: str) -> None:
    """Replace the editor's code by pasting (a real paste event, as a clipboard would send it)."""
    page.click(".cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.eval_on_selector(
        ".cm-content",
        """(el, text) => { const dt = new DataTransfer(); dt.setData('text/plain', text);
            el.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true})); }""",
        text,
    )


def editor_text(page: Any) -> str:
    return str(page.eval_on_selector("#editor-host", "el => el.gridstrideEditor.getValue()"))


def wait_verdict(page: Any) -> str:
    deadline = time.monotonic() + JUDGE_TIMEOUT_S
    while time.monotonic() < deadline:
        report = page.query_selector("#result [data-testid=report]")
        if report:
            return str(report.get_attribute("data-verdict"))
        page.wait_for_timeout(200)
    raise AssertionError("no verdict in time: " + page.inner_text("#result"))


def test_a_team_runs_a_timed_assessment_and_reads_the_report(stack: Stack, browser: Any, artifacts: Path) -> None:
    errors: list[str] = []
    team_ctx = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="light")
    team_ctx.set_default_timeout(20_000)
    team = team_ctx.new_page()
    team.on("pageerror", lambda e: errors.append(str(e)))

    # The team: an organization and an assessment.
    sign_up(team, stack.url, "olga")
    team.goto(stack.url + "/orgs/")
    team.fill("#id_name", "Acme Kernels")
    team.click("button:has-text('Create organization')")
    team.click("[data-testid=new-assessment]")
    team.fill("#id_title", "GPU kernel engineer")
    team.check("label:has-text('Vector Addition') input[name=problems]")
    team.check("input[name=languages][value=triton]")
    team.fill("#id_duration_minutes", str(DURATION_MIN))
    team.fill("#id_instructions", "Write **fast** kernels. <script>alert(1)</script>")
    shot(team, artifacts, "01-new")
    team.click("button:has-text('Create assessment')")
    team.wait_for_selector("[data-testid=invite-form]")
    team.fill("#id_email", "cand@example.com")
    team.fill("#id_name", "Cand Idate")
    team.click("[data-testid=invite-form] button")
    team.wait_for_selector("[data-testid=invitations]")
    assert "cand@example.com" in team.inner_text("[data-testid=invitations]")
    assessment_url = team.url
    shot(team, artifacts, "02-invited")

    # The candidate: the email's link, a new account, the rules, start.
    cand_ctx = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="light")
    cand_ctx.set_default_timeout(20_000)
    cand = cand_ctx.new_page()
    cand.on("pageerror", lambda e: errors.append(str(e)))
    cand.goto(invitation_link(stack))
    cand.fill("#id_username", "cand")
    cand.fill("#id_password", PASSWORD)
    shot(cand, artifacts, "03-invitation")
    cand.click("[data-testid=accept]")
    cand.wait_for_selector("[data-testid=rules]")
    assert "hidden benchmark shapes" in cand.inner_text("[data-testid=rules]")
    assert "fast" in cand.inner_text("main") and not cand.query_selector("main script")
    shot(cand, artifacts, "04-rules")
    cand.click("[data-testid=start]")
    cand.wait_for_selector(".cm-content")
    countdown = cand.inner_text("[data-testid=countdown]")
    assert re.match(r"^[0-3]:\d\d$", countdown), countdown

    # Run the correct kernel (pasted), then a wrong submit, then the correct submit.
    paste(cand, OK)
    if editor_text(cand).strip() != OK.strip():  # the editor may not take synthetic pastes
        cand.keyboard.insert_text(OK)
    assert editor_text(cand).strip() == OK.strip()
    cand.evaluate("window.dispatchEvent(new Event('blur'))")
    cand.wait_for_timeout(2500)
    cand.evaluate("window.dispatchEvent(new Event('focus'))")
    cand.click("#run")
    assert wait_verdict(cand) == "accepted", cand.inner_text("#result")
    shot(cand, artifacts, "05-run", full=False)
    cand.click(".cm-content")
    cand.keyboard.press("Control+A")
    cand.keyboard.press("Delete")
    cand.keyboard.insert_text(WRONG)
    cand.wait_for_timeout(2500)  # a typed snapshot
    cand.click("#submit")
    assert wait_verdict(cand) == "wrong_answer", cand.inner_text("#result")
    shot(cand, artifacts, "06-wrong-submit", full=False)
    cand.click(".cm-content")
    cand.keyboard.press("Control+A")
    cand.keyboard.press("Delete")
    cand.keyboard.insert_text(OK)
    cand.click("#submit")
    cand.wait_for_selector("[data-testid=submission-link]")  # taken by the server
    verdict = wait_verdict(cand)
    assert verdict == "accepted", cand.inner_text("#result")
    result = cand.inner_text("#result")
    assert "hidden shape" in result, "the hidden shape is counted, not shown"
    shot(cand, artifacts, "07-correct-submit", full=False)

    # Closed at the deadline: the page leaves the workspace for the end screen by itself. The
    # session's start moves back so that its deadline comes DEADLINE_IN_S from now rather than at
    # the end of the three minutes the runs above may need; the page learns the new deadline at
    # its next clock refresh (every 15 s), as it learns queue credit.
    stack.manage("shell", "-c", BRING_THE_DEADLINE_CLOSE)
    cand.wait_for_selector("[data-testid=finished]", timeout=(DEADLINE_IN_S + 15 + 60) * 1000)
    assert "Time is up" in cand.inner_text("[data-testid=finished]")
    shot(cand, artifacts, "08-time-up")

    # The team: comparison, report, playback, CSV.
    team.goto(assessment_url)
    team.wait_for_selector("[data-testid=comparison]")
    row = team.inner_text("[data-testid=candidate-row]")
    assert "cand" in row and "1/1" in row and "finished" in row
    shot(team, artifacts, "09-comparison")
    with team.expect_download() as download_info:
        team.click("[data-testid=export-csv]")
    rows = list(csv.DictReader(io.StringIO(Path(download_info.value.path()).read_text())))
    assert rows[0]["username"] == "cand" and rows[0]["solved"] == "1" and rows[0]["vector_add_score_us"]
    team.click("[data-testid=candidate-row] a")
    team.wait_for_selector("[data-testid=results]")
    assert "accepted" in team.inner_text("[data-testid=results]")
    shapes = team.inner_text("[data-testid=shapes]")
    assert "hidden-1" in shapes and "n=" in shapes, "reviewers see the hidden shape with its sizes"
    attempts = team.inner_text("[data-testid=attempts]")
    assert attempts.count("run") >= 1 and "wrong_answer" in attempts and attempts.count("submit") >= 2
    signals = team.inner_text("[data-testid=signals]")
    assert "characters into vector_add" in signals and "1 time" in signals
    assert "similar to the project's problems/vector_add/solutions/triton_ok.py" in signals
    slider = team.query_selector(".playback-slider")
    assert slider is not None
    # playback.js is deferred: it shows the latest snapshot once it has run.
    team.wait_for_function("document.querySelector('.playback-at').textContent.length > 0")
    frames = int(slider.get_attribute("max") or 0) + 1
    assert frames >= 3, "snapshots: typed and at every run"
    seen = []
    for i in range(frames):
        team.eval_on_selector(".playback-slider", f"el => {{ el.value = {i}; el.dispatchEvent(new Event('input')); }}")
        seen.append((team.inner_text(".playback-code"), team.inner_text(".playback-diff")))
    codes = [code.strip() for code, _ in seen]
    assert OK.strip() in codes and WRONG.strip() in codes, "playback shows the wrong kernel and the right one"
    assert any(
        line.startswith("+") and not line.startswith("+++") for _, diff in seen[1:] for line in diff.splitlines()
    )
    team.eval_on_selector(
        ".playback-slider",
        f"el => {{ el.value = {codes.index(WRONG.strip())}; el.dispatchEvent(new Event('input')); }}",
    )
    shot(team, artifacts, "10-report")
    team.emulate_media(media="print")
    shot(team, artifacts, "11-report-print")
    team.emulate_media(media="screen")

    # Dark mode: the same pages with the system's dark setting.
    dark = browser.new_context(
        viewport={"width": 1440, "height": 900}, color_scheme="dark", storage_state=team_ctx.storage_state()
    )
    d = dark.new_page()
    d.goto(team.url)
    d.wait_for_selector("[data-testid=results]")
    assert d.eval_on_selector("body", "el => getComputedStyle(el).backgroundColor") != "rgb(255, 255, 255)"
    shot(d, artifacts, "12-dark-report")
    d.goto(assessment_url)
    shot(d, artifacts, "13-dark-comparison")
    dark.close()
    cand_dark = browser.new_context(
        viewport={"width": 1440, "height": 900}, color_scheme="dark", storage_state=cand_ctx.storage_state()
    )
    cd = cand_dark.new_page()
    cd.goto(cand.url)
    shot(cd, artifacts, "14-dark-candidate-end")
    cand_dark.close()
    assert not errors, errors
    team_ctx.close()
    cand_ctx.close()
