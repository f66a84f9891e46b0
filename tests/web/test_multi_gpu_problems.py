"""Problems whose judging holds several GPUs: offered only where judges holding that many are
configured (JUDGE_GPU_POOLS), refused with a clear message elsewhere, and sent to the queue of
judges that hold them (judge.<model>.x<k>)."""

from __future__ import annotations

import re
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse
from gridstride.catalog.models import Problem
from gridstride.submissions import pools
from gridstride.submissions.actions import SubmissionRefused, create_submission
from gridstride.submissions.testing import FakeBroker
from site_fixtures import log_in, make_user, problems

pytestmark = pytest.mark.django_db

H200_SITE = {"JUDGE_DEFAULT_GPU": "h200", "JUDGE_GPU_MODELS": ["h200", "h100"]}


@pytest.fixture
def fake_broker(monkeypatch: pytest.MonkeyPatch) -> FakeBroker:
    return FakeBroker.install(monkeypatch)


@pytest.fixture
def two_gpu_problem() -> Problem:
    """vector_add as if its problem.toml said `gpus = 2` (what sync_problems would store)."""
    problem = problems()["vector_add"]
    version = problem.current_version
    assert version is not None
    version.spec = {**version.spec, "gpus": 2}
    version.save(update_fields=["spec"])
    return problem


@pytest.fixture
def alice() -> Any:
    return get_user_model().objects.create_user("alice")


@pytest.fixture
def publishing(django_capture_on_commit_callbacks: Any) -> Any:
    """Runs what create_submission leaves for after the commit (dispatch), as a real commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def submit(owner: Any, problem: Problem, **kw: Any) -> Any:
    args = {"language": "triton", "source": "def solve(): pass\n", "mode": "run"} | kw
    return create_submission(owner=owner, problem=problem, **args)


# --- the offer rule ----------------------------------------------------------------------------


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=[])
def test_a_one_gpu_problem_is_offered_on_every_configured_model_default_first() -> None:
    assert pools.models_for(1) == ["h200", "h100"]
    assert pools.unavailable_message(1) is None


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=[])
def test_a_two_gpu_problem_is_offered_nowhere_without_judges_holding_two_gpus() -> None:
    assert pools.models_for(2) == []
    assert pools.unavailable_message(2) == (
        "This problem needs 2 GPUs of one machine at once, and no judge on this site holds 2 GPUs: "
        "it cannot be run or submitted here."
    )


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=["h100:4", "h200:2", "h100:2"])
def test_a_k_gpu_problem_is_offered_only_on_models_with_a_pool_of_exactly_k() -> None:
    assert pools.models_for(2) == ["h200", "h100"]
    assert pools.models_for(4) == ["h100"]
    assert pools.models_for(8) == []


@pytest.mark.parametrize("entry", ["h200", "h200:1", "h200:9", ":2", "h200:two"])
def test_a_malformed_pool_entry_stops_the_site_naming_it(entry: str) -> None:
    with override_settings(JUDGE_GPU_POOLS=[entry]), pytest.raises(ImproperlyConfigured, match=repr(entry)):
        pools.models_for(2)


# --- submitting and routing --------------------------------------------------------------------


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=["h200:2"])
def test_a_two_gpu_problems_jobs_go_to_the_queue_of_judges_holding_two_gpus(
    fake_broker: FakeBroker, two_gpu_problem: Problem, alice: Any, publishing: Any
) -> None:
    with publishing():
        s = submit(alice, two_gpu_problem)
    assert s.gpu_model == "h200"
    assert s.queue == "judge.h200.x2"
    assert [j.queue for j in fake_broker.sent] == ["judge.h200.x2"]


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=["h200:2"])
def test_a_one_gpu_problem_still_goes_to_its_models_one_gpu_queue(
    fake_broker: FakeBroker, alice: Any, publishing: Any
) -> None:
    with publishing():
        submit(alice, problems()["vector_add"], gpu_model="h100")
    assert [j.queue for j in fake_broker.sent] == ["judge.h100"]


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=["h200:2"])
def test_a_two_gpu_problem_is_refused_on_a_model_without_such_judges(
    fake_broker: FakeBroker, two_gpu_problem: Problem, alice: Any
) -> None:
    with pytest.raises(SubmissionRefused, match="No judge holding 2 GPUs here runs on 'h100'; choose one of: h200"):
        submit(alice, two_gpu_problem, gpu_model="h100")
    assert fake_broker.sent == []


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=[])
def test_a_two_gpu_problem_is_refused_with_the_reason_where_no_judge_holds_two(
    fake_broker: FakeBroker, two_gpu_problem: Problem, alice: Any
) -> None:
    with pytest.raises(SubmissionRefused, match="vector_add: This problem needs 2 GPUs of one machine"):
        submit(alice, two_gpu_problem)
    assert fake_broker.sent == []


def problem_list(client: Client) -> str:
    response = client.get(reverse("catalog:problem_list"))
    assert response.status_code == 200
    return str(response.content.decode())


# --- the problem page --------------------------------------------------------------------------


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=[])
def test_the_page_of_a_problem_no_judge_here_can_hold_says_so_and_offers_no_run(
    client: Client, two_gpu_problem: Problem
) -> None:
    make_user("ada")
    log_in(client, "ada")
    html = client.get("/problems/vector_add/").content.decode()
    assert 'data-testid="unavailable-note"' in html and "needs 2 GPUs of one machine at once" in html
    assert 'id="run"' not in html and 'id="submit"' not in html
    assert '<option value="h200">' not in html


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=["h100:2"])
def test_the_page_of_a_two_gpu_problem_offers_only_the_models_with_two_gpu_judges(
    client: Client, two_gpu_problem: Problem
) -> None:
    make_user("ada")
    log_in(client, "ada")
    html = client.get("/problems/vector_add/").content.decode()
    assert 'data-testid="unavailable-note"' not in html and 'id="submit"' in html
    assert '<option value="h100">' in html and '<option value="h200">' not in html


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=[])
def test_the_problem_list_marks_a_problem_no_judge_here_can_hold_and_no_other(
    client: Client, two_gpu_problem: Problem
) -> None:
    html = problem_list(client)
    marks = re.findall(r'href="/problems/([a-z0-9_]+)/">[^<]*</a> <span [^>]*data-testid="not-judged-here"', html)
    assert marks == ["vector_add"]


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=["h200:2"])
def test_the_problem_list_marks_nothing_where_judges_hold_enough_gpus(client: Client, two_gpu_problem: Problem) -> None:
    html = problem_list(client)
    assert 'href="/problems/vector_add/"' in html and "not-judged-here" not in html


# --- operating -------------------------------------------------------------------------------


@override_settings(**H200_SITE, JUDGE_GPU_POOLS=["h200:2"])
def test_manage_judges_counts_waiting_jobs_by_queue_and_names_the_one_without_a_judge(
    fake_broker: FakeBroker, two_gpu_problem: Problem, alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gridstride.submissions.management.commands import judges

    submit(alice, two_gpu_problem)
    submit(alice, problems()["softmax"])
    online = [{"node": "judge-h200-gpu0@a", "queue": "judge.h200", "gpu_model": "h200", "capabilities": []}]
    monkeypatch.setattr(judges, "online_judges", lambda timeout: online)
    out = StringIO()
    call_command("judges", stdout=out)
    lines = out.getvalue().splitlines()
    assert "judge.h200: 1 queued" in lines
    assert "judge.h200.x2: 1 queued  (no judge online for it)" in lines
