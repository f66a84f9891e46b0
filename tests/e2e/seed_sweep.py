"""Seed the sweep's site with what every page needs to show something real (run through
`manage.py shell`): a user, judged submissions of each kind, a board of two GPU runs and a CPU one.
Prints the ids the sweep visits as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

# Run by `manage.py shell -c` from the repository root (no __file__ there).
sys.path.insert(0, str(Path.cwd() / "tests" / "web"))

from site_fixtures import (
    make_submission,
    make_user,
    problems,
    report,
    wrong_answer_cases,
)

USERNAME = "sweeper"
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
    print(json.dumps({k: str(v.public_id) for k, v in ids.items()}))


main()
