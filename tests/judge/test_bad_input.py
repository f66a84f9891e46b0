"""Hostile sources judged end to end on the CPU: each gets a user-facing verdict, promptly, never
internal_error (the trusted checks' own time bound is tested in test_source_scan.py)."""

from __future__ import annotations

import pytest

from tests.adversarial_sources import crafted
from tests.judge.judging_helpers import judge

USER_VERDICTS = {"compile_error", "rejected", "runtime_error", "wrong_answer", "time_limit", "memory_limit"}


@pytest.mark.parametrize(
    ("name", "language", "verdict", "says"),
    [
        ("escaped double quotes", "pytorch", "compile_error", "SyntaxError: unterminated string literal"),
        ("nul bytes", "pytorch", "rejected", "NUL character at line 1, column 1"),
        ("lone surrogates", "triton", "rejected", "lone surrogate \\ud800 (not Unicode text) at line 1, column 1"),
        ("open block comments", "cuda", "compile_error", 'must define extern "C" void solve'),
        ("unclosed extern solve", "cuda", "compile_error", 'must define extern "C" void solve'),
    ],
)
def test_a_hostile_source_gets_a_user_verdict_promptly(name: str, language: str, verdict: str, says: str) -> None:
    report = judge(crafted()[name], language=language)
    assert (report.verdict, report.verdict in USER_VERDICTS) == (verdict, True), report.message
    assert says in report.message
    assert report.elapsed_s < 60
