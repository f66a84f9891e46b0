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


CUDA_SOLVE = 'extern "C" void solve(const float* a, const float* b, float* c, int n) { }\n'
ADD = "def solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"


@pytest.mark.parametrize(
    ("source", "language", "verdict", "says"),
    [
        # 80 MiB of initialised data lives in the library, over the 64 MiB it may have.
        ("char big[80 << 20] = {1};\n" + CUDA_SOLVE, "cuda", "compile_error", "larger than the 64 MiB limit"),
        ("import torch\ntorch.set_default_dtype(torch.float64)\n" + ADD, "pytorch", "rejected", "get_default_dtype()"),
        ("import torch\nimport no_such_module\n" + ADD, "pytorch", "runtime_error", "No module named 'no_such_module'"),
        ("import sys\nsys.exit(0)\n", "pytorch", "runtime_error", "SystemExit: 0"),
        ("import torch\ndef solve(a, b, c, n):\n    raise KeyboardInterrupt\n", "pytorch", "runtime_error", "KeyboardInterrupt"),
        (
            "import torch\nclass E(BaseException):\n    pass\ndef solve(a, b, c, n):\n    raise E('x')\n",
            "pytorch",
            "runtime_error",
            "solution.E: x",
        ),
        (
            "import torch\nclass E(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n"
            "def solve(a, b, c, n):\n    raise E()\n",
            "pytorch",
            "runtime_error",
            "solution.E: <exception str() failed>",
        ),
        ("import torch\ndef solve(a, b, c, n):\n    raise ValueError('x' * 50_000_000)\n", "pytorch", "runtime_error", "trimmed"),
    ],
    ids=["cuda-80-MiB-array", "default-dtype", "broken-import", "exit-at-import", "keyboard-interrupt", "base-exception",
         "str-raises", "huge-message"],
)  # fmt: skip
def test_a_users_mistake_is_never_an_internal_error(source: str, language: str, verdict: str, says: str) -> None:
    report = judge(source, language=language)
    assert report.verdict == verdict, report.message
    assert says in report.message
    assert len(report.message.encode()) <= 17 * 1024
