"""Finding things: the problem list's search and filters, your submissions filtered, a submission
opened in the editor, two of yours compared."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from gridstride.submissions.comparison import diff_lines
from site_fixtures import log_in, make_submission, make_user, problems

pytestmark = pytest.mark.django_db


def listed(html: str) -> list[str]:
    return re.findall(r'<tr data-slug="([\w-]+)">', html)


def test_the_problem_list_searches_and_filters_by_track_difficulty_and_topic(client: Client) -> None:
    problems()
    everything = listed(client.get("/").content.decode())
    assert "softmax" in everything and "vector_add" in everything
    assert listed(client.get("/?q=Row-wise+softmax").content.decode()) == ["softmax"]
    assert set(listed(client.get("/?q=softmax").content.decode())) >= {"softmax", "paged_attention"}  # a topic too
    by_track = listed(client.get("/?track=memory").content.decode())
    assert "vector_add" in by_track and "softmax" not in by_track
    hard = listed(client.get("/?difficulty=hard").content.decode())
    assert hard and "vector_add" not in hard
    tagged = client.get("/?tag=tensor-cores").content.decode()
    assert "matmul" in listed(tagged) and "softmax" not in listed(tagged)
    assert 'data-testid="filter-count"' in tagged
    # Nonsense filters are ignored, not errors.
    assert listed(client.get("/?track=nope&difficulty=impossible").content.decode()) == everything


def test_solved_and_unsolved_filters_follow_the_viewer(client: Client) -> None:
    ps = problems()
    me = make_user("me")
    make_submission(me, ps["softmax"])
    log_in(client, "me")
    assert listed(client.get("/?status=solved").content.decode()) == ["softmax"]
    assert "softmax" not in listed(client.get("/?status=unsolved").content.decode())


def test_your_submissions_filter_by_problem_language_and_verdict(client: Client) -> None:
    ps = problems()
    me = make_user("me")
    a = make_submission(me, ps["softmax"], language="triton")
    b = make_submission(me, ps["softmax"], language="cuda", mode="run", verdict="wrong_answer")
    c = make_submission(me, ps["vector_add"], language="triton")
    log_in(client, "me")

    def shown(query: str) -> set[str]:
        html = client.get(f"/submissions/{query}").content.decode()
        return set(re.findall(r'href="/submissions/([0-9a-f-]{36})/"', html))

    assert shown("") == {str(a.public_id), str(b.public_id), str(c.public_id)}
    assert shown("?problem=softmax") == {str(a.public_id), str(b.public_id)}
    assert shown("?language=cuda") == {str(b.public_id)}
    assert shown("?verdict=wrong_answer") == {str(b.public_id)}
    assert shown("?problem=softmax&verdict=accepted") == {str(a.public_id)}


def test_a_submission_opens_in_the_editor_for_its_owner_only(client: Client) -> None:
    ps = problems()
    me = make_user("me")
    s = make_submission(me, ps["softmax"], language="cuda", source='extern "C" void solve() { /* mine */ }\n')
    log_in(client, "me")
    html = client.get(f"/problems/softmax/?from={s.public_id}").content.decode()
    assert "/* mine */" in html and '"load": {"language": "cuda"' in html
    assert f"?from={s.public_id}" in client.get(f"/submissions/{s.public_id}/").content.decode()
    make_user("other")
    log_in(client, "other")
    assert "/* mine */" not in client.get(f"/problems/softmax/?from={s.public_id}").content.decode()


def test_two_of_your_submissions_compare_code_and_per_shape_timings(client: Client) -> None:
    ps = problems()
    me = make_user("me")
    slow = make_submission(me, ps["softmax"], score_scale=1.0, source="x = 1\ny = 2\n")
    fast = make_submission(me, ps["softmax"], score_scale=0.5, source="x = 1\ny = 3\n")
    log_in(client, "me")
    html = client.get(f"/submissions/compare/?a={slow.public_id}&b={fast.public_id}").content.decode()
    table = html[html.index('data-testid="compare-shapes"') :]
    assert "4096x16384" in table and "200.0 µs" in table and "100.0 µs" in table and "-50.0 %" in table
    assert "2.00×" in table  # noqa: RUF001
    assert '<span class="d-del">-y = 2</span>' in html and '<span class="d-add">+y = 3</span>' in html
    # Someone else's submission cannot be compared.
    theirs = make_submission(make_user("them"), ps["softmax"])
    assert client.get(f"/submissions/compare/?a={slow.public_id}&b={theirs.public_id}").status_code == 404
    assert client.get("/submissions/compare/?a=x&b=y").status_code == 404


def test_a_diff_marks_added_removed_and_context_lines() -> None:
    rows = diff_lines("a\nb\nc\n", "a\nB\nc\n")
    assert ("del", "-b") in rows and ("add", "+B") in rows and rows[0][0] == "hunk"


def test_the_profile_counts_solved_problems_track_by_track(client: Client) -> None:
    ps = problems()
    me = make_user("me")
    make_submission(me, ps["softmax"], is_public=True)
    make_submission(me, ps["vector_add"], is_public=True)
    html = client.get("/users/me/").content.decode()
    table = html[html.index('data-testid="per-track"') : html.index("</table>", html.index('data-testid="per-track"'))]
    rows = dict(re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">([^<]+)</td></tr>", table))
    memory = next(v for k, v in rows.items() if k.startswith("Memory"))
    triton = next(v for k, v in rows.items() if k.startswith("Triton"))
    assert memory.startswith("1 / ") and triton.startswith("1 / ")
    best = html[html.index('data-testid="best-results"') :]
    assert "Row-wise Softmax" in best and " %" in best  # best % of speed of light per problem
