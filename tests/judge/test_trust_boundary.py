"""The trust boundary on CPU hosts (docs/judging.md, "The trust boundary"): the parent owns the
memory a call computes on, holds every seed, reads outputs and inputs itself and bounds the
child's times with its own clock. Each attack file of the corpus goes through the real child
(sandboxed) and parent."""

from __future__ import annotations

import json
import os

import pytest

from judge import spec as specmod
from tests.judge.judging_helpers import judge

SEEDLIKE = ("seed", "pool_seeds", "fresh_key", "sample_phase", "reference_source")


def corpus_source(problem: str, file: str) -> str:
    return (specmod.PROBLEMS_DIR / problem / "solutions" / file).read_text(encoding="utf-8")


PRINTS_ITS_JOB = """
import dataclasses, gc, json
import torch

runner = next(o for o in gc.get_objects() if type(o).__name__ == "Runner")
print("JOB " + json.dumps(dataclasses.asdict(runner.job), default=str))


def solve(a, b, c, n):
    torch.add(a, b, out=c)
"""


def test_the_childs_job_carries_no_seed_and_no_input_generator() -> None:
    report = judge(PRINTS_ITS_JOB, mode="benchmark")
    assert report.verdict == "accepted", report.message
    line = next(x for x in report.stdout.splitlines() if x.startswith("JOB "))
    job = json.loads(line[4:])
    assert job["memory"] == "shared"
    assert "generate_inputs" not in json.dumps(job) and "reference" not in job["paths"]
    assert job["cases"] and job["benchmarks"]
    held = [
        (key, value)
        for item in [job, *job["cases"], *job["benchmarks"]]
        for key, value in item.items()
        if key in SEEDLIKE and value not in (None, [], "")
    ]
    assert held == []


@pytest.mark.parametrize(
    ("problem", "file", "language", "mode", "verdict", "rule"),
    [
        ("vector_add", "triton_patches_channel_times.py", "triton", "benchmark", "rejected", "forged-timing"),
        ("vector_add", "triton_patches_json_dumps.py", "triton", "benchmark", "rejected", "forged-timing"),
        ("vector_add", "pytorch_forges_input_checksums.py", "pytorch", "test", "rejected", "inputs-modified"),
    ],
)
def test_an_attack_of_the_corpus_is_rejected_by_the_parent(
    problem: str, file: str, language: str, mode: str, verdict: str, rule: str
) -> None:
    report = judge(corpus_source(problem, file), language=language, problem=problem, mode=mode)
    assert report.verdict == verdict, report.message
    assert f"rule broken ({rule})" in report.message


def test_forged_timing_shows_the_claim_and_the_judges_own_figures() -> None:
    source = corpus_source("vector_add", "triton_patches_json_dumps.py")
    report = judge(source, language="triton", mode="benchmark")
    assert report.verdict == "rejected"
    assert "reported a median of" in report.message and "the judge's own clock saw a median of" in report.message
    clock = report.system["parent_clock"]
    assert clock["calibration"] and all(c["n"] >= 2 for c in clock["calibration"].values())
    shape = next(v for k, v in clock.items() if k != "calibration" and v["forged"])
    assert shape["broken"] and shape["span_us"] > 100 * shape["claimed_us"]


def test_precomputing_from_seeds_finds_none_and_is_judged_at_its_honest_work() -> None:
    report = judge(corpus_source("matmul", "pytorch_precomputes_from_seeds.py"), problem="matmul", mode="benchmark")
    assert report.verdict == "accepted", report.message
    assert "precomputed 0 products" in report.stdout


def test_an_honest_submission_passes_the_parents_clock_and_its_figures_are_in_the_report() -> None:
    report = judge(corpus_source("vector_add", "pytorch_ok.py"), mode="benchmark")
    assert report.verdict == "accepted", report.message
    clock = report.system["parent_clock"]
    for timing in report.benchmarks:
        figures = clock[timing.name]
        assert not figures["forged"]
        assert figures["span_us"] >= figures["claimed_us"]
        assert len(figures["added_us"]) >= 2  # one figure per batch of timed calls
        assert timing.judge_clock_added_us is not None and timing.judge_clock_added_us >= 0


@pytest.mark.parametrize("file", ["pytorch_halves_its_times.py", "pytorch_divides_its_times.py"])
def test_a_forger_is_rejected_or_scored_at_the_judges_clock(file: str) -> None:
    """Claims the judge's clock contradicts are never the score: a forger is rejected, or scored
    at the time the judge's clock saw, no faster than the honest file judged around it. The
    honest score is the faster of a judging right before the forger and one right after: on a
    loaded 2-core host one honest judging alone can come out 3x slow, which would let a forger
    that halves its times pass unnoticed, and the faster one makes the check stricter."""
    honest_before = judge(corpus_source("vector_add", "pytorch_ok.py"), mode="benchmark")
    assert honest_before.verdict == "accepted", honest_before.message
    forged = judge(corpus_source("vector_add", file), mode="benchmark")
    if forged.verdict == "rejected":
        assert "rule broken (forged-timing)" in forged.message
        return
    assert forged.verdict == "accepted", forged.message
    honest_after = judge(corpus_source("vector_add", "pytorch_ok.py"), mode="benchmark")
    assert honest_after.verdict == "accepted", honest_after.message
    assert forged.score_us is not None and honest_before.score_us is not None and honest_after.score_us is not None
    honest = min(honest_before.score_us, honest_after.score_us)
    assert forged.score_us >= 0.75 * honest, (forged.score_us, honest_before.score_us, honest_after.score_us)
    claims = forged.system["parent_clock"]
    assert any(sum(claims[t.name]["added_us"]) > 0 for t in forged.benchmarks)


FINISHES_LATER = """
import threading
import time

import torch

seen = set()


def late_add(a, b, c):
    time.sleep(0.05)
    torch.add(a, b, out=c)


def solve(a, b, c, n):
    if n < 65536 or c.data_ptr() not in seen:  # the first call on each output, and small cases
        seen.add(c.data_ptr())
        torch.add(a, b, out=c)
        return
    threading.Thread(target=late_add, args=(a, b, c)).start()
"""


def test_outputs_not_written_when_a_call_is_reported_done_are_hidden_work() -> None:
    report = judge(FINISHES_LATER, mode="benchmark")
    assert report.verdict == "rejected", report.message
    assert "rule broken (hidden-work)" in report.message and "not written yet" in report.message


def test_work_handed_to_threads_is_inside_the_batch_the_judges_clock_sees() -> None:
    """Each call hands its add to a thread and returns: the work overlaps the next calls of the
    batch, but it all lies between the batch's go and done, where the judge's clock counts it;
    rejected if an output is still unwritten at done, else scored no faster than the honest file."""
    honest = judge(corpus_source("vector_add", "pytorch_ok.py"), mode="benchmark")
    report = judge(corpus_source("vector_add", "pytorch_finishes_after_return.py"), mode="benchmark")
    if report.verdict == "rejected":
        assert "rule broken (hidden-work)" in report.message
        return
    assert report.verdict == "accepted" and honest.verdict == "accepted", (report.message, honest.message)
    assert report.score_us is not None and honest.score_us is not None
    assert report.score_us >= 0.75 * honest.score_us, (report.score_us, honest.score_us)


REBINDS_OUTPUT = """
import gc
import torch

runner = next(o for o in gc.get_objects() if type(o).__name__ == "Runner")
runner.check_after_call = lambda *args, **kwargs: None  # the child's own identity check, off


def solve(a, b, c, n):
    c.set_(torch.empty_like(c))  # the result goes into memory of its own
    torch.add(a, b, out=c)
"""


def test_outputs_are_read_from_the_parents_memory_not_from_the_childs_tensors() -> None:
    report = judge(REBINDS_OUTPUT)
    assert report.verdict == "wrong_answer", report.message
    assert "not written" in report.message


def test_a_region_cannot_be_shrunk_under_the_parents_mapping() -> None:
    from judge.harness.common.shared_memory import Region, layout

    slots, size = layout([("a", "float32", (1000,))])
    region = Region.create(slots, size)
    try:
        with pytest.raises(PermissionError):
            os.ftruncate(region.fd, 64)
        region.views["a"].fill_(1.0)
        assert float(region.views["a"].sum()) == 1000.0
    finally:
        region.close()
