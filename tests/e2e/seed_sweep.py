"""Seed the sweep's site with what every page needs to show something real (run through
`manage.py shell`): a user, judged submissions of each kind, a board of two GPU runs and a CPU one,
a finished contest with results and a result under review, an organization with an assessment, a
candidate in the middle of it and a pending invitation, and a password-reset link. Prints the ids
the sweep visits as JSON."""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth.tokens import default_token_generator
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from gridstride.assessments import actions as hiring
from gridstride.assessments.models import EventKind, PageEvent, Snapshot, SnapshotKind
from gridstride.contests import actions as contests
from gridstride.contests.models import Contest, Entry, EntryKind, FinalRun, FinalRunState, FinalState
from gridstride.submissions.models import Submission

# Run by `manage.py shell -c` from the repository root (no __file__ there).
sys.path.insert(0, str(Path.cwd() / "tests" / "web"))

from site_fixtures import (
    make_submission,
    make_user,
    problems,
    report,
    softmax_shapes,
    wrong_answer_cases,
)

USERNAME = "sweeper"
CANDIDATE = "candy"
PASSWORD = "a-long-test-password-9"  # site_fixtures.PASSWORD


def main() -> None:
    ps = problems()
    softmax = ps["softmax"]
    me = make_user(USERNAME)
    rival = make_user("rival")
    ids = {
        "accepted": make_submission(me, softmax, score_scale=0.9, is_public=True),
        "rival": make_submission(rival, softmax, score_scale=0.905, is_public=True),
        "cpu": make_submission(me, softmax, gpu_model="cpu", score_scale=400.0, samples=3),
        "wrong": make_submission(
            me,
            softmax,
            mode="run",
            verdict="wrong_answer",
            report_data=report("wrong_answer", mode="test", shapes=[], cases=wrong_answer_cases()),
        ),
        "compile": make_submission(
            me,
            softmax,
            language="cuda",
            mode="run",
            verdict="compile_error",
            report_data=report(
                "compile_error",
                mode="test",
                shapes=[],
                cases=[],
                compile_log="submission.cu(3): error: expected a ';'",
                message="nvcc failed",
            ),
        ),
    }
    out = {k: str(v.public_id) for k, v in ids.items()}
    out.update(seed_contest(me, [rival, make_user("ana")], ps))
    out.update(seed_assessment(me, rival, ps))
    out["reset_uid"] = urlsafe_base64_encode(force_bytes(me.pk))
    out["reset_token"] = default_token_generator.make_token(me)
    print(json.dumps(out))


def judged_row(owner: Any, problem: Any, *, scale: float, context: str, key: str, gpu: str = "h200") -> Submission:
    """A judged submission of a contest or an assessment (rows made directly: no practice board)."""
    data = report("accepted", mode="benchmark", shapes=softmax_shapes(scale))
    return Submission.objects.create(
        owner=owner,
        problem=problem,
        problem_version=problem.current_version,
        language="triton",
        source=f"# {owner.get_username()}'s kernel\ndef solve(x, y, m, n):\n    pass\n",
        mode="submit",
        context=context,
        context_key=key,
        gpu_model=gpu,
        status="done",
        verdict="accepted",
        score_us=data["score_us"],
        sol_pct=data["sol_pct"],
        report=data,
        queued_at=timezone.now(),
        finished_at=timezone.now(),
        queue_wait_s=2.0,
    )


def seed_contest(organizer: Any, entrants: list[Any], ps: dict[str, Any]) -> dict[str, str]:
    """A contest that has ended: live runs, final re-runs decided, one result waiting for review."""
    now = timezone.now()
    contest = contests.create_contest(
        creator=organizer,
        slug="sweep-cup",
        title="Sweep Cup: kernels against the clock",
        starts_at=now - timedelta(hours=2),
        ends_at=now + timedelta(hours=1),
        problems=[ps["softmax"], ps["vector_add"]],
        gpu_models=["h200"],
        rules="Write the fastest **softmax**. Final results come from a re-run on fresh inputs.",
    )
    for i, user in enumerate(entrants):
        participant = contests.register(contest, user)
        live = judged_row(user, ps["softmax"], scale=0.9 + 0.3 * i, context="contest", key=contest.slug)
        Entry.objects.create(contest=contest, participant=participant, submission=live, kind=EntryKind.LIVE)
        rerun = judged_row(user, ps["softmax"], scale=0.92 + 0.3 * i, context="contest", key=contest.slug)
        Entry.objects.create(contest=contest, participant=participant, submission=rerun, kind=EntryKind.FINAL)
        review = i == len(entrants) - 1
        FinalRun.objects.create(
            contest=contest,
            participant=participant,
            problem=ps["softmax"],
            gpu_model="h200",
            live=live,
            rerun=rerun,
            state=FinalRunState.REVIEW if review else FinalRunState.FINAL,
            signals={"reasons": ["the re-run took 31% longer than the live run"]} if review else {"reasons": []},
            judged_at=now,
        )
    Contest.objects.filter(pk=contest.pk).update(
        ends_at=now - timedelta(minutes=10), final_state=FinalState.DONE, final_started_at=now, final_done_at=now
    )
    return {"contest": contest.slug}


def seed_assessment(owner: Any, reviewer: Any, ps: dict[str, Any]) -> dict[str, str]:
    """An organization (owner and reviewer), an assessment with a candidate in the middle of it
    (runs, snapshots, signals) and a second invitation not yet used."""
    now = timezone.now()
    org = hiring.create_organization(owner, "Sweep Hiring")
    hiring.add_member(org, reviewer.get_username(), "reviewer")
    assessment = hiring.save_assessment(
        org,
        owner,
        {
            "title": "GPU kernel engineer, first round",
            "duration_minutes": 600,
            "gpu_model": "h200",
            "instructions": "Two problems. Correctness first, then speed. *Good luck.*",
        },
        [ps["softmax"], ps["vector_add"]],
    )
    base = "http://127.0.0.1/"
    invitation = hiring.invite(assessment, "candy@example.com", name="Candy", extra_pct=25, base_url=base, now=now)
    candidate_user = make_user(CANDIDATE)
    candidate = hiring.start(hiring.accept(invitation, candidate_user, now), now - timedelta(minutes=40))
    pending = hiring.invite(assessment, "later@example.com", name="Later", base_url=base, now=now)
    for minutes, scale in ((12, 1.6), (25, 1.1)):
        sub = judged_row(candidate_user, ps["softmax"], scale=scale, context="assessment", key=assessment.context_key)
        Submission.objects.filter(pk=sub.pk).update(created_at=now - timedelta(minutes=40 - minutes))
        Snapshot.objects.create(
            candidate=candidate,
            problem=ps["softmax"],
            language="triton",
            source=sub.source + f"# run at minute {minutes}\n",
            kind=SnapshotKind.SUBMIT,
            submission=sub,
            at=now - timedelta(minutes=40 - minutes),
        )
    PageEvent.objects.create(candidate=candidate, problem=ps["softmax"], kind=EventKind.PASTE, chars=640, at=now)
    PageEvent.objects.create(candidate=candidate, kind=EventKind.AWAY, seconds=95.0, at=now)
    return {
        "org": org.slug,
        "assessment": str(assessment.public_id),
        "candidate": str(candidate.pk),
        "invite": hiring.invite_token(pending),
    }


main()
