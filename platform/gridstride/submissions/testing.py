"""Test support: a stand-in for the broker, and reports as a judge would send them.

Any test that creates submissions should use `FakeBroker.install(monkeypatch)` (or a real broker
on purpose): otherwise jobs go to the configured broker, by default the laptop's var/broker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gridstride.submissions import broker
from gridstride.submissions.models import Submission
from judge.protocol import Report


@dataclass
class SentJob:
    job: dict[str, Any]
    queue: str
    priority: int
    task_id: str


@dataclass
class FakeBroker:
    sent: list[SentJob] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)
    # Set to an exception to make publishing fail (broker down).
    fail_with: Exception | None = None

    def send_job(self, job: dict[str, Any], *, queue: str, priority: int, task_id: str) -> None:
        if self.fail_with is not None:
            raise self.fail_with
        self.sent.append(SentJob(job, queue, priority, task_id))

    def revoke(self, task_ids: list[str]) -> None:
        self.revoked.extend(task_ids)

    @classmethod
    def install(cls, monkeypatch: Any) -> FakeBroker:
        fake = cls()
        monkeypatch.setattr(broker, "send_job", fake.send_job)
        monkeypatch.setattr(broker, "revoke", fake.revoke)
        return fake


def report_for(
    submission: Submission, verdict: str = "accepted", *, attempt: int | None = None, **extra: Any
) -> Report:
    """The report a judge would send for the submission's current (or a given) attempt."""
    mode = {"run": "test", "submit": "benchmark", "profile": "profile"}[submission.mode]
    fields: dict[str, Any] = {
        "message": "",
        "ranked": verdict == "accepted" and submission.mode != "run",
        "score_us": 12.5 if verdict == "accepted" else None,
        "sol_pct": 61.0 if verdict == "accepted" else None,
    }
    fields.update(extra)
    return Report(
        submission_id=str(submission.public_id),
        attempt=submission.attempt if attempt is None else attempt,
        problem=submission.problem.slug,
        language=submission.language,
        mode=mode,
        verdict=verdict,
        **fields,
    )
