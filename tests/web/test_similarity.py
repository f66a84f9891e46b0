"""Winnowing fingerprints (gridstride.lib.similarity): planted near-copies of corpus solutions score
high, independently written solutions of the same problem score low."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gridstride.lib.similarity import closest, fingerprint, similarity, tokens

ROOT = Path(__file__).resolve().parents[2]
SOFTMAX_OK = (ROOT / "problems/softmax/solutions/triton_ok.py").read_text()
SOFTMAX_EXPERT = (ROOT / "reference_kernels/softmax/expert_triton.py").read_text()
STARTER = (ROOT / "problems/softmax/starters/triton.py").read_text()

RENAMES = {
    "x_ptr": "src",
    "y_ptr": "dst",
    "row": "r",
    "cols": "offs",
    "mask": "valid",
    "run_max": "m_i",
    "run_sum": "l_i",
    "new_max": "m_new",
    "start": "base",
    "softmax_row_kernel": "k_small",
    "softmax_online_kernel": "k_big",
}


def renamed(source: str) -> str:
    for old, new in RENAMES.items():
        source = re.sub(rf"\b{old}\b", new, source)
    return source


def reordered(source: str) -> str:
    """The two kernels swapped (each decorated function kept whole)."""
    head, first, second_and_rest = source.partition("@triton.jit\ndef softmax_row_kernel")
    kernel_a, _, rest = second_and_rest.partition("@triton.jit\ndef softmax_online_kernel")
    kernel_b, sep2, tail = rest.partition("def solve(")
    return head + "@triton.jit\ndef softmax_online_kernel" + kernel_b + first + kernel_a + sep2 + tail


def commented(source: str) -> str:
    lines = []
    for i, line in enumerate(source.splitlines()):
        lines.append(line + ("  # my own careful step" if i % 3 == 0 and line.strip() else ""))
        if i % 5 == 0:
            lines.append("    # thinking about numerical stability here" if line.startswith(" ") else "")
    return "\n".join(lines) + "\n"


def score(a: str, b: str) -> float:
    value = similarity(fingerprint(a), fingerprint(b), fingerprint(STARTER))
    assert value is not None
    return value


def test_tokens_drop_comments_and_rename_identifiers_but_keep_api_names() -> None:
    assert tokens("x = tl.load(ptr + i)  # load it\ny = 1.5 * x") == [
        "V", "=", "V", ".", "load", "(", "V", "+", "V", ")", "V", "=", "N", "*", "V",
    ]  # fmt: skip
    assert tokens("__global__ void k(float* a) { /* x */ a[threadIdx.x] = 0; } // done") == [
        "__global__", "void", "V", "(", "float", "*", "V", ")", "{", "V", "[", "threadIdx", ".", "x", "]", "=", "N", ";", "}",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "disguise",
    [renamed, reordered, commented, lambda s: commented(reordered(renamed(s)))],
    ids=["renamed variables", "reordered functions", "added comments", "all three"],
)
def test_a_planted_near_copy_scores_high(disguise) -> None:  # type: ignore[no-untyped-def]
    copy = disguise(SOFTMAX_OK)
    assert copy != SOFTMAX_OK
    assert score(SOFTMAX_OK, copy) >= 0.8


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("problems/softmax/solutions/triton_ok.py", "reference_kernels/softmax/expert_triton.py"),
        ("problems/softmax/solutions/cuda_ok.cu", "reference_kernels/softmax/expert_cuda.cu"),
        ("problems/vector_add/solutions/cuda_ok.cu", "reference_kernels/vector_add/expert_cuda.cu"),
        ("problems/reduction/solutions/triton_ok.py", "problems/softmax/solutions/triton_ok.py"),
    ],
)
def test_independent_correct_solutions_score_low(a: str, b: str) -> None:
    starter = ROOT / "problems" / Path(a).parts[1] / "starters" / ("cuda.cu" if a.endswith(".cu") else "triton.py")
    value = similarity(
        fingerprint((ROOT / a).read_text()), fingerprint((ROOT / b).read_text()), fingerprint(starter.read_text())
    )
    assert value is not None and value < 0.3, value


def test_the_starter_everyone_begins_from_does_not_count() -> None:
    # Two sources that are the starter plus different few lines: without the starter removed
    # they look alike; with it removed they are too short to compare or score low.
    a = STARTER + "\n\ndef helper_one(q):\n    return q * 2 + 1\n"
    b = STARTER + "\n\nclass Other:\n    pass\n"
    with_starter = similarity(fingerprint(a), fingerprint(b))
    without = similarity(fingerprint(a), fingerprint(b), fingerprint(STARTER))
    assert with_starter is not None and with_starter > 0.7
    assert without is None or without < 0.3


def test_closest_ranks_the_copy_first() -> None:
    others = [("expert", SOFTMAX_EXPERT), ("copy", renamed(SOFTMAX_OK))]
    found = closest(SOFTMAX_OK, others, ignore_sources=[STARTER])
    assert [m.label for m in found] == ["copy", "expert"]
    assert found[0].score > 0.8 > 0.3 > found[1].score
