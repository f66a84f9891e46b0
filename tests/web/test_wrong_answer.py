"""A wrong answer on the report: every failing case (up to a few), the most telling first, each
with its mismatches and where the wrong elements are; no stray boxes."""

from __future__ import annotations

import pytest
from django.test import Client
from gridstride.pages.reports import positions_text
from site_fixtures import log_in, make_submission, make_user, problems, report

from judge.protocol import CaseResult, Mismatch

pytestmark = pytest.mark.django_db


def failing(name: str, sizes: dict[str, int], count: int, positions: dict[str, int] | None = None) -> CaseResult:
    return CaseResult(
        name=name,
        sizes=sizes,
        passed=False,
        output="c",
        max_abs_err=1.0,
        max_rel_err=1.0,
        tolerance={"atol": 1e-5, "rtol": 1e-5},
        mismatch_count=count,
        mismatches=[Mismatch(index=[sizes["n"] - 1], expected=1.0, got="nan", abs_err="inf", rel_err="inf")],  # type: ignore[arg-type]
        message=f"c: {count} of {sizes['n']} elements outside the tolerance",
        positions=positions,
    )


def test_every_failing_case_is_shown_the_most_telling_first(client: Client) -> None:
    p = problems()["vector_add"]
    user = make_user("ada")
    cases = [
        failing("one", {"n": 1}, 1),
        CaseResult(name="small", sizes={"n": 7}, passed=True),
        failing("prime", {"n": 1009}, 1, {"first": 1008, "last": 1008, "count": 1, "total": 1009}),
        failing("large", {"n": 100_003}, 1, {"first": 100_002, "last": 100_002, "count": 1, "total": 100_003}),
        failing("tile", {"n": 4096}, 128, {"first": 31, "last": 4095, "count": 128, "total": 4096, "stride": 32}),
    ]
    data = report("wrong_answer", problem="vector_add", mode="test", shapes=[], cases=cases)
    s = make_submission(user, p, mode="run", verdict="wrong_answer", report_data=data)
    log_in(client, "ada")
    html = client.get(f"/submissions/{s.public_id}/report/").content.decode()
    shown = html.count('data-testid="failure"')
    assert shown == 3
    order = [html.index(f"{name} <span") for name in ("tile", "large", "prime")]
    assert order == sorted(order)  # most mismatches first, then the largest case
    assert "Failing cases, the most telling first: tile" in html
    assert "every 32nd element from flat index 31 to 4,095 (128 elements)" in html
    assert "only flat index 100,002, the last element" in html
    assert html.count('data-testid="mismatches"') == 3
    assert "4 cases failed; the table below lists them all" in html
    # The output's name is in the heading, not in a box of its own.
    assert '<pre class="log">c</pre>' not in html and "output <code>c</code>" in html


@pytest.mark.parametrize(
    ("positions", "text"),
    [
        ({"first": 0, "last": 299, "count": 300, "total": 300, "stride": 1}, "the whole output"),
        ({"first": 256, "last": 299, "count": 44, "total": 300, "stride": 1}, "flat indices 256 to 299, up to the end"),
        ({"first": 3, "last": 50, "count": 3, "total": 100}, "scattered between flat indices 3 and 50 (3 elements)"),
        ({"first": 0, "last": 0, "count": 1, "total": 8}, "only flat index 0, the first element"),
        (None, ""),
    ],
)
def test_positions_read_as_a_pattern(positions: dict[str, int] | None, text: str) -> None:
    assert text in positions_text(positions)
