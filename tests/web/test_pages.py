"""The problem list (tracks, markers, best % SOL), static pages, number formatting and the roofline."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from gridstride.pages import roofline, units
from gridstride.pages.logs import link_line_numbers
from site_fixtures import log_in, make_submission, make_user, problems

pytestmark = pytest.mark.django_db


def row(html: str, slug: str) -> str:
    start = html.index(f'data-slug="{slug}"')
    return html[start : html.index("</tr>", start)]


def test_the_problem_list_marks_solved_and_attempted_problems_for_the_viewer(client: Client) -> None:
    ps = problems()
    ada = make_user("ada")
    make_submission(ada, ps["softmax"])
    make_submission(ada, ps["vector_add"], verdict="wrong_answer", mode="run")
    make_submission(ada, ps["reduction"], mode="run")  # accepted, but only a correctness run
    log_in(client, "ada")
    html = client.get("/").content.decode()
    assert 'title="solved"' in row(html, "softmax")
    assert 'title="attempted"' in row(html, "vector_add")
    assert 'title="attempted"' in row(html, "reduction")
    assert "title=" not in row(html, "matmul")
    assert "1 solved" in html


def test_the_problem_list_shows_each_problems_best_ranked_sol(client: Client) -> None:
    ps = problems()
    fast = make_submission(make_user(), ps["softmax"], score_scale=0.8)
    make_submission(make_user(), ps["softmax"], score_scale=0.9)
    make_submission(make_user(), ps["vector_add"], gpu_model="cpu")  # unranked: not a best known
    html = client.get("/").content.decode()
    assert units.percent(fast.sol_pct) in row(html, "softmax")
    assert "%" not in row(html, "vector_add")


def test_the_list_groups_problems_by_track_in_learning_order(client: Client) -> None:
    problems()
    html = client.get("/").content.decode()
    positions = [html.index(f'id="track-{t}"') for t in ("memory", "cuda", "triton", "optimization", "inference")]
    assert positions == sorted(positions)


def test_about_and_health_pages(client: Client) -> None:
    about = client.get("/about/").content.decode()
    assert "solve(inputs…, outputs…, sizes…)" in about and "/api/docs" in about
    assert client.get("/healthz").content == b"ok"


def test_the_roofline_draws_both_roofs_points_with_titles_and_escapes_labels() -> None:
    points = [
        roofline.Point("submission", "<b>shape</b>", intensity=0.625, flops_per_s=2.0e12, time_us=100.0),
        roofline.Point("reference", "s", intensity=0.625, flops_per_s=1.5e12, time_us=130.0),
        roofline.Point("best", "s", intensity=0.625, flops_per_s=2.5e12, time_us=80.0),
    ]
    svg = str(roofline.render(points, roofline.Roofs(bandwidth_gbps=4300.0, peak_tflops=67.0, compute_label="fp32")))
    assert svg.startswith('<svg class="roofline"') and svg.count("<title>") >= 6
    assert "memory roof: 4.30 TB/s" in svg and "fp32 roof: 67.0 TFLOP/s" in svg
    assert "&lt;b&gt;shape&lt;/b&gt;" in svg and "<b>" not in svg
    assert svg.count('class="rf-point') == 3
    assert "arithmetic intensity (FLOP/byte)" in svg


def test_the_roofline_without_ceilings_still_plots_the_points() -> None:
    points = [roofline.Point("submission", "s", intensity=1.0, flops_per_s=1e9, time_us=5.0)]
    svg = str(roofline.render(points, roofline.Roofs(None, None)))
    assert "rf-point" in svg and "rf-roof" not in svg
    assert str(roofline.render([], roofline.Roofs(None, None))) == ""


def test_log_line_links_only_wrap_the_reference_and_escape_the_rest() -> None:
    html = str(link_line_numbers('x.cu(3): error <b>\n  File "/site-packages/t.py", line 9\n  File "sub.py", line 4'))
    assert '<a class="line-link" href="#L3" data-line="3">x.cu(3)</a>' in html
    assert "&lt;b&gt;" in html and 'data-line="9"' not in html and 'data-line="4"' in html


def test_the_roofline_titles_both_axes_and_labels_each_shape_without_overlap() -> None:
    points = [
        roofline.Point("submission", "4096x16384", intensity=0.625, flops_per_s=2.0e12, time_us=100.0),
        roofline.Point("submission", "32768x1024", intensity=0.625, flops_per_s=2.01e12, time_us=99.0),
    ]
    svg = str(roofline.render(points, roofline.Roofs(bandwidth_gbps=4300.0, peak_tflops=67.0, compute_label="fp32")))
    assert "throughput (FLOP/s)" in svg and "arithmetic intensity (FLOP/byte)" in svg
    labels = re.findall(r'<text class="rf-label" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]+)</text>', svg)
    assert sorted(name for _, _, name in labels) == ["32768x1024", "4096x16384"]
    (_, y1, _), (_, y2, _) = labels
    assert abs(float(y1) - float(y2)) >= roofline.LABEL_GAP  # stacked, not printed over each other


def test_a_cpu_hosts_roofs_are_marked_as_cpu(client: Client) -> None:
    from gridstride.pages import reports

    data = {
        "verdict": "accepted",
        "mode": "benchmark",
        "ranked": False,
        "ceilings": {"dram_gbps": 11.5, "fp32_tflops": 0.09, "bf16_tflops": 0.01},
        "system": {"device": "cpu"},
        "benchmarks": [{"name": "s", "median_us": 5000.0, "flops": 1e6, "bytes": 1.2e7, "n": 3}],
    }
    svg = str(reports.build(data, gpu_model="cpu").chart)
    assert "CPU memory roof: 11.5 GB/s" in svg and "CPU fp32 roof: 90.0 GFLOP/s" in svg


def test_math_reaches_katex_as_written_and_stays_escaped() -> None:
    from gridstride.lib.markdown import render_markdown

    html = render_markdown(r"Group $G = \texttt{num\_heads} / h_{kv}$, and $$a_i * b_j < c$$ costs $5 and $6.")
    assert r"$G = \texttt{num\_heads} / h_{kv}$" in html
    assert "$$a_i * b_j &lt; c$$" in html and "<em>" not in html
    assert "costs $5 and $6." in html
    assert "<script" not in render_markdown("$<script>alert(1)</script>$")
