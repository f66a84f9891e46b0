"""The self-test corpus of every problem, judged on the GPU in benchmark mode: every file must
get the verdict its problem.toml expects (accepted kernels must also survive the drain, floor
and profiler rules)."""

from __future__ import annotations

import pytest

from judge import spec as specmod
from judge.selftest import corpus, timed_like
from tests.gpu.gpu_helpers import judge

pytestmark = pytest.mark.gpu

SPECS, _ = specmod.load_all()
ENTRIES = [(spec, label, path, sol) for spec in SPECS for label, path, sol in corpus(spec)]


@pytest.mark.parametrize(
    ("spec", "label", "path", "sol"),
    ENTRIES,
    ids=[f"{spec.slug}:{label.rsplit('/', 1)[-1]}" for spec, label, _, _ in ENTRIES],
)
def test_corpus_entry_gets_its_expected_verdict(spec, label, path, sol) -> None:
    report = judge(path.read_text(encoding="utf-8"), sol.language, problem=spec.slug)
    detail = f"{label}: expected {sol.expect} ({sol.why}), got {report.verdict}: {report.message[:1500]}"
    if sol.or_timed_like and report.verdict == "accepted":  # neutralised: timed in full
        honest = next(x for x in spec.solutions if x.file == sol.or_timed_like)
        fair = judge((spec.directory / "solutions" / honest.file).read_text(), honest.language, problem=spec.slug)
        ok, note = timed_like(report, fair, honest.file)
        assert ok, f"{detail}: {note}"
        return
    assert report.verdict == sol.expect, detail
    if sol.expect == "accepted":
        assert report.ranked and report.score_us and len(report.benchmarks) == len(spec.benchmarks), detail
        for shape in report.benchmarks:
            # A real kernel on this GPU sits below the speed of light, and above 0.
            assert 0 < shape.sol_pct <= 1 / 0.85 * 100, (shape.name, shape.sol_pct)
        if sol.language in ("triton", "cuda", "cupy"):
            assert report.kernels, "the profiler's kernel list is empty"
