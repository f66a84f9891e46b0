"""Run / Submit from the browser, the live status poll, and the report as the result panel shows it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from gridstride.submissions.models import Submission
from site_fixtures import (
    log_in,
    make_submission,
    make_user,
    problems,
    report,
    shape,
    softmax_shapes,
    wrong_answer_cases,
)

pytestmark = pytest.mark.django_db

TRITON = "import triton\n\ndef solve(x, y, m, n):\n    pass\n"


@pytest.fixture
def sent_jobs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Jobs the site publishes, recorded instead of sent to a broker."""
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr("gridstride.submissions.broker.send_job", lambda job, **kw: sent.append({"job": job, **kw}))
    return sent


def logged_in(client: Client, username: str = "ada") -> Any:
    user = make_user(username)
    log_in(client, username)
    return user


def post_submission(client: Client, **fields: str) -> Any:
    data = {"problem": "softmax", "language": "triton", "source": TRITON, "mode": "run", **fields}
    return client.post("/submissions/new/", data, HTTP_ACCEPT="application/json")


def test_run_from_the_page_creates_a_submission_and_answers_with_its_status_urls(
    client: Client, sent_jobs: list[dict[str, Any]]
) -> None:
    problems()
    user = logged_in(client)
    response = post_submission(client, mode="run", gpu="cpu")
    assert response.status_code == 201, response.content
    body = response.json()
    submission = Submission.objects.get(public_id=body["id"])
    assert submission.owner == user and submission.mode == "run" and submission.gpu_model == "cpu"
    assert body["status"] == "queued" and body["final"] is False
    assert body["url"] == f"/submissions/{submission.public_id}/"
    assert body["report_url"] == f"/submissions/{submission.public_id}/report/"
    assert body["stage"].startswith("queued")


def test_submit_without_javascript_redirects_to_the_live_page(client: Client, sent_jobs: list[dict[str, Any]]) -> None:
    problems()
    logged_in(client)
    response = client.post(
        "/submissions/new/", {"problem": "softmax", "language": "triton", "source": TRITON, "mode": "submit"}
    )
    submission = Submission.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/submissions/{submission.public_id}/"
    assert submission.mode == "submit"


def test_a_refused_submission_says_why(client: Client, sent_jobs: list[dict[str, Any]]) -> None:
    problems()
    logged_in(client)
    response = post_submission(client, source="   ")
    assert response.status_code == 400
    assert "empty" in response.json()["error"]
    response = post_submission(client, language="fortran")
    assert response.status_code == 400 and "fortran" in response.json()["error"]
    assert not Submission.objects.exists()


def test_a_visitor_must_log_in_to_run(client: Client) -> None:
    problems()
    response = post_submission(client)
    assert response.status_code == 401
    assert "Log in" in response.json()["error"]
    assert client.get("/submissions/new/").status_code == 405


def test_the_status_poll_names_the_stage_with_counts(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    queued = make_submission(user, p, status="queued")
    other = make_submission(make_user(), p, status="queued")
    assert client.get(f"/submissions/{queued.public_id}/status/").json()["stage"] == "queued (position 1)"
    assert other.pk  # queued behind ours
    testing = make_submission(
        user, p, status="testing", progress={"stage": "testing", "done": 2, "total": 9, "elapsed_s": 1.0}
    )
    status = client.get(f"/submissions/{testing.public_id}/status/").json()
    assert status["stage"] == "checking case 3/9"
    assert status["final"] is False and status["queue_position"] is None
    bench = make_submission(user, p, status="benchmarking", progress={"stage": "benchmarking", "done": 1, "total": 3})
    assert client.get(f"/submissions/{bench.public_id}/status/").json()["stage"] == "benchmarking shape 2/3"
    done = make_submission(user, p)
    status = client.get(f"/submissions/{done.public_id}/status/").json()
    assert status["final"] is True and status["verdict"] == "accepted" and status["verdict_text"] == "Accepted"
    assert status["elapsed_s"] >= 0
    assert client.get(f"/submissions/{done.public_id}/status/")["Cache-Control"] == "no-store"


def test_an_accepted_report_shows_timings_with_units_sol_speedup_rank_and_the_roofline(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    make_submission(make_user("faster"), p, score_scale=0.8, is_public=True)
    mine = make_submission(user, p)
    html = client.get(f"/submissions/{mine.public_id}/").content.decode()
    assert 'data-verdict="accepted"' in html
    # Per shape: median with a unit, the CI, GB/s, TFLOP/s, % of speed of light, speedup.
    assert "200.0 µs" in html and "100.0 µs" in html
    assert "±0.40 %" in html
    assert "GB/s" in html and "TFLOP/s" in html
    assert "% speed of light" in html and "1.20×" in html  # noqa: RUF001
    # The score's rank among others (the faster user is ahead).
    assert "rank 2" in html
    # Roofline: an SVG with the memory and compute roofs, this run, the reference and the best known.
    assert '<svg class="roofline"' in html
    assert "memory roof: 4.30 TB/s" in html
    assert "this submission · 4096x16384" in html
    assert "reference · 4096x16384" in html
    assert "best known · 4096x16384" in html
    # ... and the same numbers in a table beside it, and the GPU and clocks it ran on.
    assert 'aria-label="Roofline points"' in html
    assert "NVIDIA H200" in html and "1,980 MHz" in html


def test_a_cpu_result_is_clearly_marked_unranked(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    s = make_submission(user, p, gpu_model="cpu")
    html = client.get(f"/submissions/{s.public_id}/").content.decode()
    assert "unranked: CPU interpreter" in html
    assert "CPU (unranked)" in html


def test_a_wrong_answer_shows_the_first_mismatches_with_errors_against_the_tolerance(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    s = make_submission(user, p, mode="run", verdict="wrong_answer")
    html = client.get(f"/submissions/{s.public_id}/report/").content.decode()
    assert "Wrong answer" in html
    assert "Failing case: prime-cols" in html and "m=2 n=127" in html
    assert "12 elements out of tolerance" in html
    assert 'data-testid="mismatches"' in html
    assert "[0, 5]" in html and "0.0123" in html and "0.5" in html and "4.88e-01" in html
    assert "nan" in html
    assert "atol 1.00e-12, rtol 1.00e-05" in html
    assert "1/2 cases passed" in html


def test_a_compile_error_links_its_line_numbers_to_the_code(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    log = (
        'submission.cu(12): error: identifier "blockIdx_x" is undefined\n'
        "submission.cu:14:5: error: expected ';'\n"
        '  File "/usr/lib/python3/dist-packages/triton/compiler.py", line 88, in compile\n'
        '  File "/tmp/job/submission.py", line 7, in solve\n'
    )
    data = report("compile_error", mode="test", shapes=[], cases=[], compile_log=log, message="nvcc failed")
    source = "".join(f"// line {i}\n" for i in range(1, 16))
    s = make_submission(user, p, language="cuda", mode="run", verdict="compile_error", report_data=data, source=source)
    html = client.get(f"/submissions/{s.public_id}/").content.decode()
    assert "Compile error" in html
    assert '<a class="line-link" href="#L12" data-line="12">submission.cu(12)</a>' in html
    assert 'data-line="14"' in html and 'data-line="7"' in html
    assert 'data-line="88"' not in html  # library frames are not the user's lines
    assert 'id="L12"' in html  # the listing has the anchor the link jumps to


def test_a_python_syntax_error_in_the_message_links_its_line(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    data = report(
        "compile_error", mode="test", shapes=[], cases=[], message="solution.py:36:11: SyntaxError: invalid syntax"
    )
    s = make_submission(user, p, mode="run", verdict="compile_error", report_data=data)
    html = client.get(f"/submissions/{s.public_id}/report/").content.decode()
    assert '<a class="line-link" href="#L36" data-line="36">solution.py:36:11</a>' in html


@pytest.mark.parametrize(
    ("verdict", "text", "message"),
    [
        ("runtime_error", "Runtime error", "CUDA error: an illegal memory access was encountered"),
        ("time_limit", "Time limit exceeded", "ran past 120 s"),
        ("memory_limit", "Memory limit exceeded", "host memory above 16 GiB"),
        ("rejected", "Rejected", "rule: forbidden call torch.softmax on line 3"),
        ("internal_error", "Internal error", "worker lost"),
    ],
)
def test_every_other_verdict_renders_with_its_message(client: Client, verdict: str, text: str, message: str) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    data = report(verdict, mode="benchmark", shapes=[], message=message, stderr="Traceback: boom")
    s = make_submission(user, p, verdict=verdict, report_data=data)
    html = client.get(f"/submissions/{s.public_id}/").content.decode()
    assert f'data-verdict="{verdict}"' in html
    assert text in html and message in html
    assert "Traceback: boom" in html
    if verdict == "internal_error":
        assert "not your code" in html


def test_a_running_submission_page_polls_and_shows_the_stage(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    s = make_submission(user, p, status="compiling", progress={"stage": "compiling"})
    html = client.get(f"/submissions/{s.public_id}/").content.decode()
    assert f'data-status-url="/submissions/{s.public_id}/status/"' in html
    assert "compiling" in html
    assert "Not judged yet" in html


def test_private_code_is_visible_only_to_its_owner(client: Client) -> None:
    p = problems()["softmax"]
    owner = make_user("owner")
    s = make_submission(owner, p, source="SECRET_KERNEL = 1\n")
    for url in (
        f"/submissions/{s.public_id}/",
        f"/submissions/{s.public_id}/status/",
        f"/submissions/{s.public_id}/report/",
    ):
        assert client.get(url).status_code == 404
    logged_in(client, "stranger")
    assert client.get(f"/submissions/{s.public_id}/").status_code == 404
    client.logout()
    log_in(client, "owner")
    assert "SECRET_KERNEL" in client.get(f"/submissions/{s.public_id}/").content.decode()


def test_the_owner_can_share_a_link_and_take_it_back(client: Client) -> None:
    p = problems()["softmax"]
    owner = logged_in(client, "owner")
    s = make_submission(owner, p, source="SHARED_KERNEL = 1\n")
    assert client.post(f"/submissions/{s.public_id}/visibility/", {"public": "1"}).status_code == 302
    s.refresh_from_db()
    assert s.is_public
    page = client.get(f"/submissions/{s.public_id}/").content.decode()
    assert f"http://testserver/submissions/{s.public_id}/" in page
    anonymous = Client()
    assert "SHARED_KERNEL" in anonymous.get(f"/submissions/{s.public_id}/").content.decode()
    client.post(f"/submissions/{s.public_id}/visibility/", {"public": "0"})
    assert anonymous.get(f"/submissions/{s.public_id}/").status_code == 404


def test_only_the_owner_can_change_visibility(client: Client) -> None:
    p = problems()["softmax"]
    s = make_submission(make_user("owner"), p)
    logged_in(client, "stranger")
    assert client.post(f"/submissions/{s.public_id}/visibility/", {"public": "1"}).status_code == 404
    s.refresh_from_db()
    assert not s.is_public


def test_my_submissions_lists_them_newest_first(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    make_submission(user, p, verdict="wrong_answer", mode="run")
    make_submission(user, p, gpu_model="cpu")
    html = client.get("/submissions/").content.decode()
    table = html[html.index('data-testid="submissions"') :]  # after the filters (which name every verdict)
    assert "Wrong answer" in table and "unranked" in table
    assert table.index("unranked") < table.index("Wrong answer")


def test_report_rendering_survives_missing_optional_fields(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    data = report("accepted", shapes=softmax_shapes(), cases=wrong_answer_cases()[:1])
    data["ceilings"] = {}
    data["system"] = {}
    for b in data["benchmarks"]:
        b["reference_median_us"] = None
        b["speedup_vs_reference"] = None
    s = make_submission(user, p, report_data=data)
    response = client.get(f"/submissions/{s.public_id}/")
    assert response.status_code == 200
    assert "this submission · 32768x1024" in response.content.decode()


def test_a_cpu_report_without_ceilings_shows_real_small_rates_and_no_speed_of_light(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    # The interpreter on the CPU shapes: a few hundred ms for half a megabyte.
    shapes = [
        shape("4096x16384", {"m": 64, "n": 1024}, 478_000.0, flops=5.0 * 64 * 1024, nbytes=8.0 * 64 * 1024),
        shape("16x4096", {"m": 16, "n": 4096}, 137_000.0, flops=5.0 * 16 * 4096, nbytes=8.0 * 16 * 4096),
    ]
    data = report("accepted", ranked=False, shapes=shapes, ceilings={}, system={"device": "cpu", "gpu": None})
    for b in data["benchmarks"]:
        b.update(gbps=0.0, tflops=0.0, sol_pct=None, floor_us=None)  # what the CPU harness reports
    data["sol_pct"] = None
    s = make_submission(user, p, gpu_model="cpu", report_data=data)
    html = client.get(f"/submissions/{s.public_id}/report/").content.decode()
    assert "MB/s" in html and ">0 GB/s<" not in html
    assert "0.0 %" not in html and "No speed-of-light figures" in html
    assert "the CPU (no GPU)" in html and "None" not in html
    # It is the best (and only) CPU run: drawn once, as this submission.
    assert "best known ·" not in html and "this submission · 4096x16384" in html


def test_a_cpu_report_with_measured_roofs_says_they_draw_the_roofline_only(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    shapes = [shape("16x4096", {"m": 16, "n": 4096}, 137_000.0, flops=5.0 * 16 * 4096, nbytes=8.0 * 16 * 4096)]
    ceilings = {"dram_gbps": 6.97, "fp32_tflops": 0.0773, "bf16_tflops": 0.02}
    data = report("accepted", ranked=False, shapes=shapes, ceilings=ceilings, system={"device": "cpu", "gpu": None})
    for b in data["benchmarks"]:
        b.update(sol_pct=None, floor_us=None)
    data["sol_pct"] = None
    s = make_submission(user, p, gpu_model="cpu", report_data=data)
    html = client.get(f"/submissions/{s.public_id}/report/").content.decode()
    assert "measured roofs draw the roofline below" in html
    assert "this host measured no ceilings" not in html


def test_the_report_says_where_the_time_went_and_how_each_shape_was_timed(client: Client) -> None:
    p = problems()["softmax"]
    user = logged_in(client)
    shapes = softmax_shapes()
    shapes[0].launch_cover_us = 120.0
    shapes[0].set_medians_us = [199.0, 200.0, 203.5]
    shapes[1].timing_attempts, shapes[1].slow_drains = 2, [9, 0]
    timeline = [
        ["checked the source; ceilings", 0.01],
        ["child ready", 0.35],
        ["case one: checked", 1.2],
        ["output y received (1024 MiB)", 1.4],
    ]
    clocks = [{"shape": "4096x16384", "sm_clock_mhz": 1980.0}, {"shape": "8192x32768", "sm_clock_mhz": 1965.0}]
    system = {"device": "cuda", "gpu": "NVIDIA H200", "timeline_s": timeline, "clocks_after_timing": clocks}
    data = report("accepted", shapes=shapes, system=system, elapsed_s=1.5)
    mine = make_submission(user, p, report_data=data)
    html = client.get(f"/submissions/{mine.public_id}/").content.decode()
    assert 'data-testid="timeline"' in html and "Where the 1.5 s went" in html
    # Each step with the time it was done and how long it took.
    ready = "judge process ready (right after another job, this waits for its start-up)"
    assert f'<td>{ready}</td><td class="num">0.35 s</td><td class="num">0.34 s</td>' in html
    assert '<td>case one: checked</td><td class="num">1.20 s</td><td class="num">0.85 s</td>' in html
    copied = "your output y copied to the judge (1024 MiB)"
    assert f'<td>{copied}</td><td class="num">1.40 s</td><td class="num">0.20 s</td>' in html
    assert "timeline s" not in html  # not repeated among the system facts
    assert "shape 4096x16384, sm clock mhz 1,980 MHz; shape 8192x32768, sm clock mhz 1,965 MHz" in html
    assert 'title="launch cover 120 µs before each call; 3 input sets, medians 199.0 to 203.5 µs"' in html
    # A shape the judge timed twice says so (its first timing's drains looked like hidden work).
    assert html.count(">timed twice</span>") == 1
    assert "drains looked like work left running after solve() returned (9 slow drains)" in html
