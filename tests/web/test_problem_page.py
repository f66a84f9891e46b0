"""The problem page: statement with the speed-of-light numbers, and the editor workspace."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from site_fixtures import log_in, make_submission, make_user, problems

pytestmark = pytest.mark.django_db


def workspace(html: str) -> dict:  # type: ignore[type-arg]
    found = re.search(r'<script id="workspace-data" type="application/json">(.*?)</script>', html, re.S)
    assert found
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def test_the_page_is_a_split_pane_with_statement_editor_and_result_panel(client: Client) -> None:
    problems()
    html = client.get("/problems/softmax/").content.decode()
    assert 'class="pane statement-pane"' in html and 'class="pane editor-pane"' in html
    assert 'id="divider" role="separator"' in html
    assert 'id="result" aria-live="polite"' in html
    # The vendored editor and math, no CDN.
    assert "/static/vendor/codemirror/gridstride-editor.js" in html
    assert "/static/vendor/katex/katex.min.js" in html and "/static/vendor/katex/auto-render.min.js" in html
    assert "https://" not in re.sub(r"<a [^>]*>", "", html.split("<body", 1)[1]).split("statement-pane")[0]


def test_the_workspace_data_carries_every_languages_starter(client: Client) -> None:
    p = problems()["softmax"]
    data = workspace(client.get("/problems/softmax/").content.decode())
    assert [lang["id"] for lang in data["languages"]] == p.languages
    assert data["starters"] == p.current_version.starters
    assert data["submitUrl"] == "/submissions/new/" and data["slug"] == "softmax"
    assert data["authenticated"] is False
    assert "cpu" in data["gpus"]


def test_the_language_switcher_gpu_selector_reset_and_shortcuts_are_there(client: Client) -> None:
    problems()
    make_user("ada")
    log_in(client, "ada")
    html = client.get("/problems/softmax/").content.decode()
    assert '<select name="language" id="language"' in html and '<option value="cuda">CUDA C++</option>' in html
    assert '<select name="gpu" id="gpu"' in html
    assert 'id="reset"' in html and 'id="vim"' in html
    assert 'value="run" id="run"' in html and "Ctrl/Cmd+Enter" in html
    assert 'value="submit" id="submit"' in html and "Ctrl/Cmd+Shift+Enter" in html
    assert workspace(html)["authenticated"] is True


def test_a_visitor_is_asked_to_log_in_instead_of_run(client: Client) -> None:
    problems()
    html = client.get("/problems/softmax/").content.decode()
    assert "Log in to run and submit" in html and 'id="run"' not in html


def test_the_statement_shows_interface_benchmarks_and_speed_of_light(client: Client) -> None:
    problems()
    html = client.get("/problems/softmax/").content.decode()
    assert "solve(x, y, m, n)" in html
    # 4096 x 16384 fp32 softmax moves 8 bytes per element: 537 MB, 124.9 us at 4.3 TB/s.
    assert "537 MB" in html and "124.9 µs" in html and "0.625 FLOP/B" in html
    assert "memory" in html
    assert "Tolerance" in html
    # the limits the judge enforces, from problem.toml (softmax: 16 GiB host, 40 GiB GPU)
    assert "Host memory: 16,384 MiB" in html and "GPU memory for your own allocations: 40,960 MiB" in html


def test_the_result_panel_lists_my_recent_runs_of_this_problem(client: Client) -> None:
    ps = problems()
    ada = make_user("ada")
    mine = make_submission(ada, ps["softmax"], verdict="wrong_answer", mode="run")
    other_problem = make_submission(ada, ps["vector_add"])
    someone_else = make_submission(make_user(), ps["softmax"])
    log_in(client, "ada")
    html = client.get("/problems/softmax/").content.decode()
    assert f"/submissions/{mine.public_id}/" in html
    assert f"/submissions/{other_problem.public_id}/" not in html
    assert f"/submissions/{someone_else.public_id}/" not in html


def test_a_form_post_without_javascript_works(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gridstride.submissions.broker.send_job", lambda job, **kw: None)
    problems()
    make_user("ada")
    log_in(client, "ada")
    html = client.get("/problems/softmax/").content.decode()
    assert '<form id="submit-form" method="post" action="/submissions/new/">' in html
    assert '<textarea class="source-fallback" name="source"' in html
    response = client.post(
        "/submissions/new/", {"problem": "softmax", "language": "triton", "source": "x = 1", "mode": "run"}
    )
    assert response.status_code == 302 and response["Location"].startswith("/submissions/")


@pytest.mark.parametrize("slug", ["softmax", "paged_attention", "vector_add"])
def test_interface_and_benchmarks_appear_once_with_the_statements_prose_inside(client: Client, slug: str) -> None:
    problems()
    html = client.get(f"/problems/{slug}/").content.decode()
    statement = html[html.index('class="pane statement-pane"') : html.index('id="divider"')]
    assert len(re.findall(r"<h2[^>]*>Interface</h2>", statement)) == 1
    assert len(re.findall(r"<h2[^>]*>Benchmarks", statement)) == 1
    interface = statement[statement.index('id="interface"') : statement.index('id="benchmarks"')]
    assert "solve(" in interface and 'class="interface"' in interface
    assert "<h2>Hints</h2>" in statement or "Hints" in statement


def test_the_statement_splits_at_its_level_two_headings() -> None:
    from gridstride.catalog.views import split_statement

    parts = split_statement("Intro.\n\n## Interface\n\nargs\n\n## Hints\n\n- h\n\n## Benchmarks\n\nshapes\n")
    assert parts["intro"].strip() == "Intro."
    assert parts["Interface"].strip() == "args" and parts["Benchmarks"].strip() == "shapes"
    assert parts["rest"].strip() == "## Hints\n\n- h"


def test_on_a_cpu_host_the_page_says_what_practice_there_can_and_cannot_tell(client: Client, settings) -> None:  # type: ignore[no-untyped-def]
    problems()
    settings.JUDGE_DEFAULT_GPU = "cpu"
    html = client.get("/problems/matmul/").content.decode()
    note = html.split('data-testid="cpu-host-note"', 1)[1].split("</aside>", 1)[0]
    text = re.sub(r"<[^>]+>", "", note)
    assert "This site judges on a CPU (no GPU)." in text
    assert "whether your kernel is correct" in text
    assert "times are CPU figures on small shapes" in text and "nothing is ranked" in text
    assert "needs a GPU" in text and "never as a wrong answer" in text


def test_on_a_gpu_host_the_page_has_no_cpu_note(client: Client, settings) -> None:  # type: ignore[no-untyped-def]
    problems()
    settings.JUDGE_DEFAULT_GPU = "h200"
    settings.JUDGE_GPU_MODELS = ["h200"]
    html = client.get("/problems/matmul/").content.decode()
    assert "cpu-host-note" not in html
