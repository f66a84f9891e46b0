"""Per-participant judging in contests: secret seeds for live judging, a fresh seed and hidden
shapes for the final re-run, similarity between participants as a review signal, hidden problems."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from gridstride.catalog.models import Problem
from gridstride.contests import actions
from gridstride.contests.models import FinalRun
from gridstride.submissions.testing import FakeBroker

from tests.web.contest_fixtures import (  # noqa: F401 (fixtures)
    END,
    START,
    Clock,
    clock_fixture,
    fake_broker_fixture,
    gpus_fixture,
    judge,
    make_contest,
    vector_add_fixture,
)
from tests.web.site_fixtures import log_in, make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("gpus")]

# A kernel long enough for winnowing fingerprints, its copy with renamed variables and reordered
# functions, and an independent solution.
KERNEL = """
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


def grid_for(n, block):
    return (triton.cdiv(n, block),)


def solve(a, b, c, n):
    block = 1024
    add_kernel[grid_for(n, block)](a, b, c, n, BLOCK=block)
"""
COPY = """
import triton
import triton.language as tl


def launch_grid(size, width):
    return (triton.cdiv(size, width),)


@triton.jit
def vec_add(x_ptr, y_ptr, out_ptr, size, BLOCK: tl.constexpr):
    program = tl.program_id(0)
    idx = program * BLOCK + tl.arange(0, BLOCK)
    keep = idx < size
    x = tl.load(x_ptr + idx, mask=keep)
    y = tl.load(y_ptr + idx, mask=keep)
    tl.store(out_ptr + idx, x + y, mask=keep)


def solve(x, y, out, size):
    width = 1024
    vec_add[launch_grid(size, width)](x, y, out, size, BLOCK=width)
"""
OTHER = """
import torch


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, n: int) -> None:
    # Chunks of 2^20 elements keep the temporary small on every device.
    chunk = 1 << 20
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        torch.add(a[start:stop], b[start:stop], out=c[start:stop])
    if n == 0:
        return
    assert c.shape[0] == n, "the judge allocates c with n elements"
"""


def send(contest, user, problem, source, language="triton", median_us=100.0):
    s = actions.submit(
        contest, user, problem=problem, language=language, source=source, mode="submit", gpu_model="h200"
    )
    return judge(s, median_us=median_us)


def test_live_jobs_carry_each_participants_own_secret_seed_and_no_hidden_shapes(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add])
    alice, bob = make_user("alice"), make_user("bob")
    pa, pb = actions.register(contest, alice), actions.register(contest, bob)
    clock.set(START + timedelta(minutes=1))
    send(contest, alice, vector_add, KERNEL)
    send(contest, alice, vector_add, KERNEL)
    send(contest, bob, vector_add, OTHER, language="pytorch")
    seeds = [j.job["participant_seed"] for j in fake_broker.sent]
    assert (
        seeds == [pa.participant_seed, pa.participant_seed, pb.participant_seed]
        and pa.participant_seed != pb.participant_seed
    )
    assert all(j.job["hidden_benchmarks"] == [] for j in fake_broker.sent)
    # The seed is the server's secret: the participant's pages never show it.
    page = Client()
    log_in(page, "alice")
    for url in (reverse("contests:detail", args=[contest.slug]), reverse("contests:mine", args=[contest.slug])):
        assert str(pa.participant_seed) not in page.get(url).content.decode()


def test_the_rerun_job_has_a_fresh_seed_and_the_problems_hidden_shapes(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add])
    alice = make_user("alice")
    participant = actions.register(contest, alice)
    clock.set(START + timedelta(minutes=1))
    send(contest, alice, vector_add, KERNEL)
    clock.set(END)
    actions.start_final_run(contest)
    job = fake_broker.sent[-1].job
    assert job["participant_seed"] not in (0, participant.participant_seed)
    templates = {t["name"]: t for t in vector_add.current_version.spec["hidden_benchmarks"]}
    assert [s["name"] for s in job["hidden_benchmarks"]] == [f"hidden-{i + 1}" for i in range(len(templates))]
    for shape, template in zip(job["hidden_benchmarks"], templates.values(), strict=True):
        lo, hi = template["sizes"]["n"]["lo"], template["sizes"]["n"]["hi"]
        assert lo <= shape["sizes"]["n"] <= hi  # the H200's ranges, not the CPU's


def test_near_copies_between_participants_go_to_review_and_an_independent_solution_does_not(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    contest = make_contest(make_user(), [vector_add])
    users = {name: make_user(name) for name in ("alice", "bob", "carol")}
    for u in users.values():
        actions.register(contest, u)
    clock.set(START + timedelta(minutes=1))
    send(contest, users["alice"], vector_add, KERNEL)
    send(contest, users["bob"], vector_add, COPY)
    send(contest, users["carol"], vector_add, OTHER, language="pytorch")
    clock.set(END)
    actions.start_final_run(contest)
    for fr in FinalRun.objects.select_related("rerun"):
        judge(fr.rerun, median_us=100.0)
    runs = {fr.participant.name: fr for fr in FinalRun.objects.select_related("participant")}
    assert runs["alice"].state == runs["bob"].state == "review"
    assert (
        runs["alice"].signals["similar"][0]["participant"] == "bob"
        and runs["alice"].signals["similar"][0]["score"] >= 80
    )
    assert "similar to bob's" in runs["alice"].signals["reasons"][0]
    assert runs["carol"].state == "final" and runs["carol"].signals["similar"] == []


def test_a_hidden_problem_is_open_to_participants_and_after_the_end_for_practice_from_the_contest(
    clock: Clock, fake_broker: FakeBroker, vector_add: Problem
) -> None:
    Problem.objects.filter(pk=vector_add.pk).update(is_hidden=True)
    vector_add.refresh_from_db()
    contest = make_contest(make_user(), [vector_add])
    alice = make_user("alice")
    actions.register(contest, alice)
    page = Client()
    log_in(page, "alice")
    url = reverse("contests:problem", args=[contest.slug, "A"])
    assert page.get(url).status_code == 404  # before the start, even for participants
    clock.set(START)
    assert page.get(url).status_code == 200
    assert page.get(reverse("catalog:problem_detail", args=["vector_add"])).status_code == 404
    send(contest, alice, vector_add, KERNEL)
    clock.set(END + timedelta(days=1))
    assert Client().get(url).status_code == 200  # past contests' problems are open to everyone
    r = page.post(
        reverse("contests:submit", args=[contest.slug, "A"]),
        {"language": "triton", "source": KERNEL, "mode": "run", "gpu": "h200"},
        HTTP_ACCEPT="application/json",
    )
    assert r.status_code == 201, r.content
    assert fake_broker.sent[-1].priority == 6  # practice, not contest
