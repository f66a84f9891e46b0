"""The problem page's workspace in Chromium: drafts that follow the user to another browser (the
site's copy, localStorage as the fallback), the narrow screen's Statement / Code / Result tabs,
and the skip link. Nothing is judged here (the pipeline's stand-in judge)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stack import Stack

pytestmark = pytest.mark.e2e

USERNAME = "drafter"
PASSWORD = "an-e2e-password-47"
PAGE = "/problems/softmax/"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(tmp_path_factory.mktemp("workspace"), harness="tests.pipeline.trivial_harness:judge_job")
    try:
        s.start()
        s.manage(
            "shell",
            "-c",
            f"from django.contrib.auth import get_user_model; "
            f"get_user_model().objects.create_user({USERNAME!r}, 'drafter@example.com', {PASSWORD!r})",
        )
        yield s
    except BaseException:
        print(s.logs())
        raise
    finally:
        s.stop()


def new_context(browser: Any, stack: Stack, *, phone: bool = False, login: bool = True) -> Any:
    size = {"width": 390, "height": 844} if phone else {"width": 1440, "height": 900}
    context = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone)
    context.set_default_timeout(20_000)
    if login:
        page = context.new_page()
        page.goto(stack.url + "/accounts/login/")
        page.fill("#id_username", USERNAME)
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_selector("[data-testid=nav-user]")
        page.close()
    return context


def open_editor(context: Any, stack: Stack) -> Any:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    page.goto(stack.url + PAGE)
    page.wait_for_selector(".cm-content", state="attached")  # on a phone it is under the Code tab
    return page


def editor_text(page: Any) -> str:
    return str(page.eval_on_selector("#editor-host", "el => el.gridstrideEditor.getValue()"))


def type_code(page: Any, text: str) -> None:
    page.click(".cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def wait_saved_on_site(page: Any) -> None:
    # "draft saved in this browser" comes first; the bare words only once the site has it.
    page.wait_for_function("() => document.getElementById('save-state').textContent === 'draft saved'")


def draft_posts(page: Any) -> list[str]:
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if "/submissions/drafts/" in r.url else None)
    return posts


def test_a_draft_typed_in_one_browser_opens_in_another_and_the_newer_copy_wins(
    stack: Stack, browser: Any, artifacts: Path
) -> None:
    first = new_context(browser, stack)
    a = open_editor(first, stack)
    a.select_option("#language", "cuda")
    type_code(a, "// typed on the first machine\n__global__ void k() {}\n")
    wait_saved_on_site(a)

    # Another machine: no localStorage of its own; the site's draft opens, in the language last used.
    second = new_context(browser, stack)
    b = open_editor(second, stack)
    assert b.input_value("#language") == "cuda"
    assert "typed on the first machine" in editor_text(b)
    b.screenshot(path=str(artifacts / "draft-second-browser.png"))
    type_code(b, "// edited on the second machine\n__global__ void k() {}\n")
    wait_saved_on_site(b)

    # Back on the first: its own copy is older than the site's now, so the site's wins.
    a.reload()
    a.wait_for_selector(".cm-content")
    assert "edited on the second machine" in editor_text(a)
    stored = a.evaluate("() => localStorage.getItem('gridstride:draft:softmax:cuda')")
    assert "edited on the second machine" in stored, "the site's copy is kept here too, for offline use"

    # Offline on the first: the edit stays in this browser, and reaches the site when it is back.
    first.set_offline(True)
    type_code(a, "// typed offline\n__global__ void k() {}\n")
    a.wait_for_selector("#save-state:has-text('in this browser')")
    first.set_offline(False)
    a.evaluate("() => window.dispatchEvent(new Event('online'))")
    wait_saved_on_site(a)
    b.reload()
    b.wait_for_selector(".cm-content")
    assert "typed offline" in editor_text(b)
    assert not a.errors and not b.errors, a.errors + b.errors
    first.close()
    second.close()


def test_switching_language_without_an_edit_saves_nothing_and_says_so(stack: Stack, browser: Any) -> None:
    context = new_context(browser, stack)
    page = open_editor(context, stack)
    posts = draft_posts(page)
    page.select_option("#language", "triton")
    assert page.inner_text("#save-state") in ("starter loaded", "draft restored")
    page.select_option("#language", "pytorch")
    page.wait_for_timeout(2600)  # past the page's debounce: a save would have been sent by now
    assert "saved" not in page.inner_text("#save-state")
    assert page.inner_text("#save-state") == "starter loaded"
    assert posts == []
    context.close()


def test_the_narrow_screens_tabs_show_one_pane_at_a_time(stack: Stack, browser: Any, artifacts: Path) -> None:
    context = new_context(browser, stack, phone=True)
    page = open_editor(context, stack)
    tabs = {name: f"[data-testid=tab-{name}]" for name in ("statement", "code", "result")}
    panes = {"statement": "#statement", "code": "#editor-host", "result": "#result"}
    assert page.is_visible(panes["statement"]) and not page.is_visible(panes["code"])
    for name in ("code", "result", "statement", "code"):
        page.tap(tabs[name])
        page.wait_for_function(f"() => document.getElementById('workspace').dataset.tab === '{name}'")
        for other, selector in panes.items():
            assert page.is_visible(selector) == (other == name), (
                f"after the {name} tab: {other} is shown={other != name}"
            )
        assert page.get_attribute(tabs[name], "aria-current") == "page"
        assert sum(page.get_attribute(t, "aria-current") == "page" for t in tabs.values()) == 1
        page.screenshot(path=str(artifacts / f"tabs-{name}.png"))
    # The Code tab puts the editor in the first screen, focused.
    box = page.eval_on_selector(".cm-content", "el => el.getBoundingClientRect().top")
    assert box < 844 / 2
    assert page.evaluate("() => document.activeElement.closest('#editor-host') !== null")
    assert not page.errors, page.errors
    context.close()


@pytest.mark.parametrize("phone", [False, True], ids=["wide", "phone"])
def test_the_skip_link_is_the_first_tab_stop_and_reaches_the_editor(stack: Stack, browser: Any, phone: bool) -> None:
    context = new_context(browser, stack, phone=phone, login=False)
    page = open_editor(context, stack)
    page.keyboard.press("Tab")
    focused = page.evaluate("() => [document.activeElement.className, document.activeElement.textContent]")
    assert focused == ["skip-link", "Skip to the editor"]
    assert page.eval_on_selector(".skip-link", "el => el.getBoundingClientRect().top >= 0"), "visible when focused"
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.id === 'code'")
    assert page.is_visible("#code") and page.is_visible("#editor-host")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "language", "the toolbar comes next"
    # Any other page: the skip link leads to its main content.
    page.goto(stack.url + "/leaderboards/")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.hash === '#main'")
    page.keyboard.press("Tab")
    inside = page.evaluate("() => document.getElementById('main').contains(document.activeElement)")
    assert inside, "the next tab stop is inside the main content, past the header"
    assert not page.errors, page.errors
    context.close()
