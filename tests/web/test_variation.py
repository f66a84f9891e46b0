"""Per-participant judging variation (gridstride.lib.variation): each participant's hidden shapes
and seed differ, stay inside the problem's ranges, reach the judge's job and never the participant's
view of a report."""

from __future__ import annotations

from typing import Any

import pytest
from gridstride.lib.variation import hidden_shapes, job_fields, new_participant_seed, participant_report
from gridstride.submissions.actions import job_for
from gridstride.submissions.models import Submission
from site_fixtures import make_user, problems

from judge import spec as specmod
from judge.protocol import JOB_VERSION_PARTICIPANT, JudgeJob, ProtocolError


def softmax_spec() -> dict[str, Any]:
    return specmod.load("softmax").as_dict()


def test_two_participants_get_different_hidden_shapes_inside_the_problems_ranges() -> None:
    spec = softmax_spec()
    templates = specmod.load("softmax").hidden_benchmarks
    seen = set()
    for _ in range(20):
        shapes = hidden_shapes(spec, new_participant_seed(), "h200")
        assert [s["name"] for s in shapes] == ["hidden-1", "hidden-2"]
        for shape, template in zip(shapes, templates, strict=True):
            for size, r in template.sizes.items():
                v = shape["sizes"][size]
                assert r.lo <= v <= r.hi and (v - r.lo) % r.step == 0
        seen.add(tuple(tuple(sorted(s["sizes"].items())) for s in shapes))
    assert len(seen) == 20, "20 participants, 20 different sets of hidden shapes"


def test_one_participant_always_gets_the_same_shapes_and_cpu_judges_get_small_ones() -> None:
    spec = softmax_spec()
    seed = new_participant_seed()
    assert hidden_shapes(spec, seed, "h200") == hidden_shapes(spec, seed, "h200")
    cpu = hidden_shapes(spec, seed, "cpu")
    assert len(cpu) == 1, "only the template with cpu_sizes gives a CPU shape"
    assert cpu[0]["sizes"]["m"] <= 48 and cpu[0]["sizes"]["n"] <= 3001


def test_a_problem_without_templates_has_no_hidden_shapes() -> None:
    spec = {**specmod.load("matmul").as_dict(), "hidden_benchmarks": []}
    assert hidden_shapes(spec, new_participant_seed(), "h200") == []


@pytest.mark.parametrize("slug", sorted(p.slug for p in specmod.load_all()[0]))
def test_the_site_draws_hidden_shapes_for_every_problem_inside_its_templates(slug: str) -> None:
    """Every problem declares templates (judge/hidden_shapes.py); what the site draws from the
    stored spec is one shape per template on a GPU, one per template with cpu_sizes on a CPU, each
    inside its ranges and with an odd size on the GPU (tests/judge/test_hidden_shapes.py runs the
    reference on the CPU ones)."""
    problem = specmod.load(slug)
    spec = problem.as_dict()
    for gpu in ("h200", "cpu"):
        templates = [t for t in problem.hidden_benchmarks if gpu != "cpu" or t.cpu_sizes]
        assert templates
        for _ in range(5):
            shapes = hidden_shapes(spec, new_participant_seed(), gpu)
            assert [s["name"] for s in shapes] == [f"hidden-{i + 1}" for i in range(len(templates))]
            for shape, template in zip(shapes, templates, strict=True):
                ranges = template.sizes if gpu != "cpu" else template.cpu_sizes
                assert ranges is not None and list(shape["sizes"]) == list(problem.sizes)
                for size, r in ranges.items():
                    v = shape["sizes"][size]
                    assert r.lo <= v <= r.hi and (v - r.lo) % r.step == 0
                if gpu != "cpu":
                    assert any(v % 2 for v in shape["sizes"].values())


@pytest.mark.django_db
def test_the_judge_job_carries_the_participant_seed_and_shapes_as_version_2() -> None:
    problem = problems()["softmax"]
    seed = new_participant_seed()
    fields = job_fields(seed, hidden_shapes(problem.current_version.spec, seed, "cpu"))
    sub = Submission.objects.create(
        owner=make_user(),
        problem=problem,
        problem_version=problem.current_version,
        language="triton",
        source="def solve(): pass",
        mode="submit",
        variation=fields,
    )
    job = job_for(sub)
    assert job.version == JOB_VERSION_PARTICIPANT
    assert job.participant_seed == seed and job.hidden_benchmarks == fields["hidden_benchmarks"]
    JudgeJob.from_dict(job.__dict__)  # valid on the judge's side
    practice = Submission.objects.create(
        owner=sub.owner,
        problem=problem,
        problem_version=problem.current_version,
        language="triton",
        source="x",
        mode="submit",
    )
    assert job_for(practice).version == 1 and job_for(practice).participant_seed == 0


def test_a_judge_refuses_participant_fields_on_a_version_1_job_and_bad_shapes() -> None:
    base = {"submission_id": "s", "attempt": 1, "problem": "softmax", "language": "triton", "source": "x"}
    with pytest.raises(ProtocolError):
        JudgeJob.from_dict({**base, "participant_seed": 5})
    for bad in (
        [{"name": "big", "sizes": {"m": 1, "n": 2}}],
        [{"name": "hidden-1", "sizes": {"m": 0, "n": 2}}],
        [{"name": "hidden-1", "sizes": {"m": 1}}, {"name": "hidden-1", "sizes": {"m": 1}}],
    ):
        with pytest.raises(ProtocolError):
            JudgeJob.from_dict({**base, "version": 2, "hidden_benchmarks": bad})
    with pytest.raises(ProtocolError):
        JudgeJob.from_dict({**base, "version": 3})


def test_the_participants_view_of_a_report_has_no_hidden_sizes_or_scored_output() -> None:
    report = {
        "verdict": "wrong_answer",
        "message": "benchmark hidden-2 (input set 0): output y differs",
        "benchmarks": [
            {"name": "4096x16384", "sizes": {"m": 4096, "n": 16384}, "median_us": 10.0},
            {"name": "hidden-1", "sizes": {"m": 3001, "n": 17017}, "median_us": 9.0, "gbps": 100.0},
        ],
        "cases": [{"name": "hidden-2", "sizes": {"m": 3001, "n": 17017}, "passed": False}],
        "stdout": "sizes 3001 17017",
        "stderr": "",
        "system": {
            "drain_detail": {"hidden-1": [1], "4096x16384": [2]},
            "parent_clock": {
                "calibration": {"n": 24},
                "hidden-1": {"claimed_us": 9.0},
                "4096x16384": {"claimed_us": 10.0},
            },
        },
    }
    view = participant_report(report, "submit")
    assert view is not None
    text = repr(view)
    assert "3001" not in text and "17017" not in text and "hidden-2" not in text
    assert [b["name"] for b in view["benchmarks"]] == ["4096x16384"] and view["hidden_shapes"] == 1
    assert view["cases"] == [] and view["system"]["drain_detail"] == {"4096x16384": [2]}
    assert sorted(view["system"]["parent_clock"]) == ["4096x16384", "calibration"]
    assert "reviewers" in view["stdout"]
    assert report["stdout"] == "sizes 3001 17017", "the stored report is left whole for reviewers"


@pytest.mark.django_db
def test_the_participants_own_pages_and_api_never_show_hidden_sizes_or_the_seed() -> None:
    from django.test import Client
    from gridstride.api.actions import issue_token

    problem = problems()["softmax"]
    owner = make_user()
    seed = new_participant_seed()
    hidden = [{"name": "hidden-1", "sizes": {"m": 3001, "n": 17017}}]
    sub = Submission.objects.create(
        owner=owner,
        problem=problem,
        problem_version=problem.current_version,
        language="triton",
        source="def solve(): pass",
        mode="submit",
        context="assessment",
        variation=job_fields(seed, hidden),
        status="done",
        verdict="accepted",
        progress={"stage": "done", "detail": "hidden-1 m=3001"},
        report={
            "verdict": "accepted",
            "mode": "benchmark",
            "benchmarks": [
                {"name": "hidden-1", "sizes": {"m": 3001, "n": 17017}, "median_us": 9.0, "gbps": 1.0},
            ],
            "stdout": "3001 17017",
        },
    )
    c = Client()
    c.force_login(owner)
    _, token = issue_token(owner, "t")
    pages = [
        c.get(f"/submissions/{sub.public_id}/").content.decode(),
        c.get(f"/submissions/{sub.public_id}/report/").content.decode(),
        c.get(f"/submissions/{sub.public_id}/status/").content.decode(),
        c.get(f"/api/submissions/{sub.public_id}", HTTP_AUTHORIZATION=f"Bearer {token}").content.decode(),
    ]
    for body in pages:
        assert "3001" not in body and "17017" not in body and str(seed) not in body
    assert "hidden shape" in pages[1]
    # Never public: the owner cannot share it.
    c.post(f"/submissions/{sub.public_id}/visibility/", {"public": "1"})
    sub.refresh_from_db()
    assert sub.is_public is False
