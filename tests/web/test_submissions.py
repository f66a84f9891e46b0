"""Submissions: creating, refusing, queueing, and recording what judges send, once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import OperationalError
from django.test import override_settings
from django.utils import timezone
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.models import Problem, ProblemVersion
from gridstride.submissions import actions, tasks
from gridstride.submissions.actions import SubmissionRefused, create_submission, queue_position
from gridstride.submissions.models import PRIORITY, EventKind, Submission
from gridstride.submissions.signals import submission_judged
from gridstride.submissions.testing import FakeBroker, report_for

from judge.protocol import Progress

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fake_broker(monkeypatch: pytest.MonkeyPatch) -> FakeBroker:
    return FakeBroker.install(monkeypatch)


@pytest.fixture
def problem() -> Problem:
    sync_problems()
    return Problem.objects.get(slug="vector_add")


@pytest.fixture
def alice() -> Any:
    return get_user_model().objects.create_user("alice")


@pytest.fixture
def judged() -> list[Submission]:
    """Every announcement of a final verdict (what leaderboards listen to)."""
    seen: list[Submission] = []

    def listen(sender: Any, submission: Submission, **_: Any) -> None:
        seen.append(submission)

    submission_judged.connect(listen, weak=False)
    yield seen
    submission_judged.disconnect(listen)


def submit(owner: Any, problem: Problem, **kw: Any) -> Submission:
    args = {"language": "triton", "source": "def solve(): pass\n", "mode": "run"} | kw
    return create_submission(owner=owner, problem=problem, **args)


def started(submission: Submission, run_id: str = "run-a", stage: str = "compiling", seq: int = 0) -> bool:
    progress = Progress(str(submission.public_id), submission.attempt, stage)
    return actions.record_progress(progress, run_id=run_id, worker="judge-cpu-0@test", seq=seq)


def kinds(submission: Submission) -> list[str]:
    return list(submission.events.values_list("kind", flat=True))


# --- creating ---------------------------------------------------------------------------------


def test_a_submission_is_stored_queued_and_its_job_published_once_after_commit(fake_broker, problem, alice) -> None:
    s = submit(alice, problem, mode="submit", context="contest", context_key="spring")
    assert (s.status, s.verdict, s.attempt, s.gpu_model, s.priority) == ("queued", "", 1, "cpu", PRIORITY["contest"])
    assert len(fake_broker.sent) == 1
    sent = fake_broker.sent[0]
    assert (sent.queue, sent.priority, sent.task_id) == ("judge.cpu", 3, f"{s.public_id}.1")
    assert sent.job["mode"] == "benchmark" and sent.job["problem"] == "vector_add"
    assert sent.job["content_hash"] == problem.current_version.content_hash
    s.refresh_from_db()
    assert s.dispatched_at is not None
    assert kinds(s) == ["created", "dispatched"]


@override_settings(JUDGE_DEFAULT_GPU="h200", JUDGE_GPU_MODELS=["h200", "h100"])
def test_the_site_picks_the_gpu_queue_from_settings_unless_the_caller_names_one(fake_broker, problem, alice) -> None:
    assert submit(alice, problem).gpu_model == "h200"
    assert submit(alice, problem, gpu_model="h100").gpu_model == "h100"
    assert [j.queue for j in fake_broker.sent] == ["judge.h200", "judge.h100"]
    with pytest.raises(SubmissionRefused, match="No judge here runs on 'a100'; choose one of: h100, h200"):
        submit(alice, problem, gpu_model="a100")


def test_a_source_over_64_kib_is_refused_with_its_size_and_the_limit(fake_broker, problem, alice) -> None:
    submit(alice, problem, source="x" * (64 * 1024))  # exactly the limit is fine
    with pytest.raises(SubmissionRefused, match=r"64\.0 KiB; the limit is 64 KiB"):
        submit(alice, problem, source="x" * (64 * 1024 + 1))
    # Bytes, not characters: 30 000 three-byte characters are 88 KiB.
    with pytest.raises(SubmissionRefused, match="the limit is 64 KiB"):
        submit(alice, problem, source="€" * 30_000)
    assert Submission.objects.count() == 1


def test_unknown_languages_modes_and_problems_are_refused(fake_broker, problem, alice) -> None:
    with pytest.raises(SubmissionRefused, match="Unknown language 'fortran'"):
        submit(alice, problem, language="fortran")
    with pytest.raises(SubmissionRefused, match="Unknown mode"):
        submit(alice, problem, mode="benchmark")
    with pytest.raises(SubmissionRefused, match="no problem called"):
        submit(alice, "no_such_problem")
    problem.languages = ["cuda"]
    problem.save()
    with pytest.raises(SubmissionRefused, match="does not take Triton; it takes CUDA C"):
        submit(alice, problem)
    assert fake_broker.sent == []


@override_settings(SUBMISSIONS_PER_MINUTE=3)
def test_the_rate_limit_refuses_a_users_fourth_submission_in_a_minute_but_not_others(
    fake_broker, problem, alice
) -> None:
    for _ in range(3):
        submit(alice, problem)
    with pytest.raises(SubmissionRefused, match=r"3 submissions in the last minute \(the limit is 3 a minute\)"):
        submit(alice, problem)
    bob = get_user_model().objects.create_user("bob")
    submit(bob, problem)
    # A minute later Alice may send again.
    Submission.objects.filter(owner=alice).update(created_at=timezone.now() - timedelta(seconds=61))
    submit(alice, problem)


@override_settings(JUDGE_GPU_MODELS=["cpu", "h100"])
def test_queue_position_follows_priority_then_arrival_and_ends_when_a_judge_starts(fake_broker, problem, alice) -> None:
    first = submit(alice, problem)
    second = submit(alice, problem)
    exam = submit(alice, problem, context="assessment")
    other_gpu = submit(alice, problem, gpu_model="h100")
    assert [queue_position(s) for s in (exam, first, second, other_gpu)] == [1, 2, 3, 1]
    assert started(exam)
    assert queue_position(Submission.objects.get(pk=exam.pk)) is None
    assert queue_position(Submission.objects.get(pk=second.pk)) == 2


# --- progress ---------------------------------------------------------------------------------


def test_progress_moves_the_status_renews_the_lease_and_counts_a_run(fake_broker, problem, alice) -> None:
    s = submit(alice, problem)
    assert started(s, seq=1)
    assert actions.record_progress(Progress(str(s.public_id), 1, "testing", 2, 5, "case 2/5"), run_id="run-a", seq=2)
    s.refresh_from_db()
    assert (s.status, s.runs, s.worker) == ("testing", 1, "judge-cpu-0@test")
    assert s.progress["detail"] == "case 2/5"
    assert s.lease_expires_at is not None and s.lease_expires_at > timezone.now()
    assert kinds(s).count("started") == 1


def test_late_progress_and_progress_of_an_old_attempt_change_nothing(fake_broker, problem, alice) -> None:
    s = submit(alice, problem)
    assert started(s, stage="testing", seq=20)
    assert not started(s, stage="compiling", seq=10)  # overtaken by a newer event
    assert not actions.record_progress(Progress(str(s.public_id), 7, "benchmarking"), run_id="x", seq=30)
    s.refresh_from_db()
    assert s.status == "testing"


# --- reports ----------------------------------------------------------------------------------


@override_settings(JUDGE_GPU_MODELS=["cpu", "h200"])
def test_a_report_delivered_twice_is_recorded_once_and_announced_once(fake_broker, problem, alice, judged) -> None:
    s = submit(alice, problem, mode="submit", gpu_model="h200")
    started(s)
    report = report_for(s, "accepted")
    assert actions.record_report(report) is True
    assert actions.record_report(report) is False
    s.refresh_from_db()
    assert (s.status, s.verdict, s.ranked, s.score_us) == ("done", "accepted", True, 12.5)
    assert s.report["verdict"] == "accepted" and s.finished_at is not None and s.lease_expires_at is None
    assert [j.pk for j in judged] == [s.pk]
    assert kinds(s).count("recorded") == 1 and kinds(s).count("ignored") == 1


def test_a_report_for_an_unknown_submission_is_logged_and_ignored(fake_broker, problem, alice, caplog) -> None:
    s = submit(alice, problem)
    report = report_for(s)
    report.submission_id = "00000000-0000-0000-0000-000000000000"
    assert actions.record_report(report) is False
    assert "unknown submission 00000000-0000-0000-0000-000000000000 ignored" in caplog.text


def test_a_second_different_report_cannot_overwrite_a_final_verdict(fake_broker, problem, alice, judged) -> None:
    s = submit(alice, problem)
    assert actions.record_report(report_for(s, "wrong_answer"))
    assert not actions.record_report(report_for(s, "accepted"))
    s.refresh_from_db()
    assert s.verdict == "wrong_answer" and len(judged) == 1


@override_settings(JUDGE_GPU_MODELS=["cpu", "h200"])
def test_cpu_and_run_results_are_never_ranked_even_if_the_judge_says_so(fake_broker, problem, alice) -> None:
    cpu = submit(alice, problem, mode="submit")
    run = submit(alice, problem, mode="run", gpu_model="h200")
    for s in (cpu, run):
        assert actions.record_report(report_for(s, "accepted", ranked=True))
        s.refresh_from_db()
        assert s.ranked is False and s.score_us == 12.5


def test_the_report_task_retries_while_the_database_is_unavailable(fake_broker, problem, alice, monkeypatch) -> None:
    s = submit(alice, problem)
    real = actions.record_report
    failures = iter([OperationalError("server closed the connection"), OperationalError("connection refused")])

    def flaky(report: Any) -> bool:
        error = next(failures, None)
        if error is not None:
            raise error
        return real(report)

    monkeypatch.setattr(actions, "record_report", flaky)
    result = tasks.record_report.apply(args=[report_for(s).to_dict()])
    assert result.get() is True
    s.refresh_from_db()
    assert s.verdict == "accepted" and kinds(s).count("recorded") == 1


def test_the_report_task_ignores_a_malformed_or_unknown_version_report(fake_broker, problem, alice) -> None:
    s = submit(alice, problem)
    data = report_for(s).to_dict()
    assert tasks.record_report.apply(args=[{**data, "version": 99}]).get() is False
    assert tasks.record_report.apply(args=[{**data, "verdict": "excellent"}]).get() is False
    s.refresh_from_db()
    assert s.status == "queued"


# --- leases, re-queues, give-ups --------------------------------------------------------------


def test_a_job_that_could_not_be_published_is_published_by_the_sweeper(fake_broker, problem, alice) -> None:
    fake_broker.fail_with = ConnectionError("broker down")
    s = submit(alice, problem)
    s.refresh_from_db()
    assert s.dispatched_at is None and kinds(s) == ["created", "dispatch_failed"]
    fake_broker.fail_with = None
    assert actions.sweep().dispatched == []  # still inside the grace period of its own publish
    result = actions.sweep(timezone.now() + timedelta(seconds=11))
    assert result.dispatched == [str(s.public_id)]
    assert [j.task_id for j in fake_broker.sent] == [f"{s.public_id}.1"]


@override_settings(JUDGE_MAX_ATTEMPTS=2)
def test_a_lost_lease_requeues_with_a_new_attempt_then_gives_up_with_internal_error(
    fake_broker, problem, alice, judged
) -> None:
    s = submit(alice, problem)
    started(s)
    later = timezone.now() + timedelta(hours=1)
    assert actions.sweep(later).requeued == [str(s.public_id)]
    s.refresh_from_db()
    assert (s.status, s.attempt, s.runs, s.dispatched_at is not None) == ("queued", 2, 0, True)
    assert fake_broker.revoked == [f"{s.public_id}.1"]
    assert [j.task_id for j in fake_broker.sent] == [f"{s.public_id}.1", f"{s.public_id}.2"]
    # The first judge was not dead after all: its report is now stale.
    assert not actions.record_report(report_for(s, attempt=1))
    started(s, run_id="run-b")
    assert actions.sweep(later + timedelta(hours=1)).gave_up == [str(s.public_id)]
    s.refresh_from_db()
    assert (s.status, s.verdict) == ("done", "internal_error")
    assert "lost this submission 2 times" in s.message
    assert len(judged) == 1 and "gave_up" in kinds(s)


def test_a_job_queued_too_long_without_a_judge_is_sent_again(fake_broker, problem, alice) -> None:
    s = submit(alice, problem)
    with override_settings(JUDGE_QUEUED_LEASE_S=60):
        assert actions.sweep(timezone.now() + timedelta(seconds=30)).requeued == []
        assert actions.sweep(timezone.now() + timedelta(seconds=90)).requeued == [str(s.public_id)]


@override_settings(JUDGE_MAX_ATTEMPTS=2)
def test_a_submission_whose_runs_keep_dying_is_given_up_by_the_site_too(fake_broker, problem, alice) -> None:
    s = submit(alice, problem)
    for n, run in enumerate(["a", "b", "c"], 1):
        started(s, run_id=run, seq=n)
    s.refresh_from_db()
    assert (s.status, s.verdict, s.runs) == ("done", "internal_error", 3)
    assert "died 2 times" in s.message


# --- rejudging --------------------------------------------------------------------------------


def test_a_rejudge_keeps_the_old_verdict_until_the_new_one_is_recorded(fake_broker, problem, alice, judged) -> None:
    s = submit(alice, problem)
    actions.record_report(report_for(s, "accepted"))
    # The problem was fixed since: a rejudge judges against the version judges have now.
    newer = ProblemVersion.objects.create(
        problem=problem, content_hash="f" * 32, ranking_hash="e" * 32, statement="", spec={}
    )
    Problem.objects.filter(pk=problem.pk).update(current_version=newer)
    s.refresh_from_db()
    assert actions.rejudge(s)
    s.refresh_from_db()
    assert (s.status, s.verdict, s.attempt, s.priority) == ("queued", "accepted", 2, PRIORITY["rejudge"])
    assert s.problem_version == newer and fake_broker.sent[-1].job["content_hash"] == "f" * 32
    assert not actions.record_report(report_for(s, "wrong_answer", attempt=1))
    assert actions.record_report(report_for(s, "wrong_answer"))
    s.refresh_from_db()
    assert s.verdict == "wrong_answer" and len(judged) == 2


def test_the_rejudge_command_selects_by_submission_problem_or_contest_and_reports_progress(
    fake_broker, problem, alice, capsys
) -> None:
    a = submit(alice, problem, context="contest", context_key="spring")
    b = submit(alice, problem, context="contest", context_key="autumn")
    c = submit(alice, problem)
    for s in (a, b, c):
        actions.record_report(report_for(s))
    call_command("rejudge", "--contest", "spring")
    assert "queued 1/1" in capsys.readouterr().out
    call_command("rejudge", "--submission", str(b.public_id))
    call_command("rejudge", "--problem", "vector_add", "--verdict", "accepted", "--dry-run")
    assert "3 submissions would be rejudged" in capsys.readouterr().out
    assert [Submission.objects.get(pk=s.pk).attempt for s in (a, b, c)] == [2, 2, 1]


def test_rejudge_wait_prints_progress_until_every_submission_is_judged(fake_broker, problem, alice, capsys) -> None:
    import threading

    s = submit(alice, problem)
    actions.record_report(report_for(s))

    def judge_later() -> None:
        import time

        time.sleep(1.5)
        fresh = Submission.objects.get(pk=s.pk)
        actions.record_report(report_for(fresh, "wrong_answer"))

    thread = threading.Thread(target=judge_later)
    thread.start()
    call_command("rejudge", "--submission", str(s.public_id), "--wait", "--timeout", "20")
    thread.join()
    out = capsys.readouterr().out
    assert "judged 0/1" in out and "judged 1/1" in out and "verdicts: wrong_answer 1" in out


def test_every_event_kind_used_is_a_declared_choice() -> None:
    assert {"created", "dispatched", "started", "recorded", "ignored", "requeued", "gave_up"} <= set(EventKind.values)
