"""Each compile has its own limit (problem.toml's compile_seconds), named in the verdict; submit
mode stops at the first wrong case."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest

from judge import spec as specmod
from judge.harness.child import compile_watch
from judge.harness.common.frames import Compiled, Compiling, Frame
from tests.judge.judging_helpers import judge

# A device loop unrolled 60000 times: nvcc takes about 6 s on the dev CPU, in 190 MB.
# 4^8 copies of a dependent load-and-sinf statement: nvcc needs well over a minute for them on
# an idle dev machine (a '#pragma unroll' loop compiled in about a second, so it only ran past the
# limit when the machine was busy).
SLOW_CU = """
#define R1(s) s s s s
#define R2(s) R1(R1(s))
#define R4(s) R2(R2(s))
#define R8(s) R4(R4(s))
__global__ void spin(float* x) {
    float a = x[threadIdx.x];
    R8(a = a * x[(int)a & 255] + sinf(a);)
    x[threadIdx.x] = a;
}
extern "C" void solve(const float* a, const float* b, float* c, int n) { }
"""


@pytest.fixture
def compile_seconds(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Judge with the problem's compile_seconds replaced (the mode limits stay as they are)."""
    real = specmod.load

    def set_to(seconds: int) -> None:
        def load(slug: str, root: Path = specmod.PROBLEMS_DIR) -> specmod.ProblemSpec:
            loaded = real(slug, root)
            return dataclasses.replace(loaded, limits=dataclasses.replace(loaded.limits, compile_seconds=seconds))

        monkeypatch.setattr(specmod, "load", load)

    return set_to


def test_the_hook_names_the_kernel_and_its_constexpr_values() -> None:
    sent: list[Frame] = []
    before, after = compile_watch.hooks(sent.append)

    class Jit:
        arg_names = ["x_ptr", "y_ptr", "n", "BLOCK"]

    fn = type("Info", (), {"name": "softmax_kernel", "jit_function": Jit()})()
    assert before(fn=fn, compile={"constants": {(3,): 1 << 20}, "num_warps": 4, "num_stages": 3}, key=None) is False
    after(key=None)
    assert sent == [Compiling(what="softmax_kernel[BLOCK=1048576, num_warps=4, num_stages=3]"), Compiled()]
    long = compile_watch.describe(fn, {(i % 4,): "x" * 100 for i in range(40)})
    assert len(long) <= compile_watch.MAX_WHAT


def test_a_triton_compile_past_compile_seconds_is_a_time_limit_naming_the_kernel(compile_seconds: Any) -> None:
    # On a CPU host Triton's interpreter compiles nothing, so the submission calls the hook the
    # child installed itself, as Triton would before compiling, and then hangs like a ptxas run.
    compile_seconds(2)
    source = """
        import time
        import torch
        from triton import knobs

        class Jit:
            arg_names = ["x_ptr", "y_ptr", "n", "BLOCK"]

        class Info:
            name = "softmax_kernel"
            jit_function = Jit()

        def solve(a, b, c, n):
            knobs.runtime.jit_cache_hook(key=None, fn=Info(), compile={"constants": {(3,): 1 << 20}, "num_warps": 8})
            time.sleep(30)
    """
    began = time.monotonic()
    report = judge(source, language="triton")
    assert report.verdict == "time_limit", report.message
    assert "Triton compiling kernel softmax_kernel[BLOCK=1048576, num_warps=8]" in report.message
    assert "this problem's 2 s (compile_seconds)" in report.message
    assert time.monotonic() - began < 25


def test_a_finished_compile_stops_counting_against_compile_seconds(compile_seconds: Any) -> None:
    compile_seconds(2)
    source = """
        import time
        import torch
        from triton import knobs

        class Info:
            name = "quick_kernel"

        def solve(a, b, c, n):
            knobs.runtime.jit_cache_hook(key=None, fn=Info(), compile={})
            knobs.runtime.jit_post_compile_hook(key=None)
            if n == 1:
                time.sleep(3)  # longer than compile_seconds, but no compile is running
            torch.add(a, b, out=c)
    """
    report = judge(source, language="pytorch")  # the hooks are installed for PyTorch too
    assert report.verdict == "accepted", report.message


def test_a_compile_that_raised_stops_counting_once_the_child_moves_on(compile_seconds: Any) -> None:
    # A compile whose post-compile hook never runs (it raised; the autotuner went on without it):
    # the next frame from the child ends its compile clock.
    compile_seconds(2)
    source = """
        import time
        import torch
        from triton import knobs

        class Info:
            name = "too_big_config"

        def solve(a, b, c, n):
            if n == 1:
                knobs.runtime.jit_cache_hook(key=None, fn=Info(), compile={})  # then "fails"
            if n == 3:
                time.sleep(3)  # longer than compile_seconds, cases later
            torch.add(a, b, out=c)
    """
    report = judge(source, language="pytorch")
    assert report.verdict == "accepted", report.message


def test_an_nvcc_compile_past_compile_seconds_is_a_time_limit_naming_the_file(compile_seconds: Any) -> None:
    compile_seconds(2)
    began = time.monotonic()
    report = judge(SLOW_CU, language="cuda")
    assert report.verdict == "time_limit", report.message
    assert "nvcc compiling solution.cu took longer than this problem's 2 s (compile_seconds)" in report.message
    assert time.monotonic() - began < 20


WRONG_ON_TWO_THEN_SLOW = """
    import time
    import torch

    def solve(a, b, c, n):
        torch.add(a, b, out=c)
        if n == 2:
            c.zero_()
        if n == 3:
            time.sleep(40)
"""


def test_submit_mode_stops_at_the_first_wrong_case_with_its_verdict_at_once() -> None:
    began = time.monotonic()
    report = judge(WRONG_ON_TWO_THEN_SLOW, mode="benchmark")
    assert report.verdict == "wrong_answer", report.message
    assert "case 'two'" in report.message and "afterwards" not in report.message
    assert [c.name for c in report.cases] == ["one", "two"] and not report.benchmarks
    assert time.monotonic() - began < 30  # case 'three' (40 s) never ran


def test_test_mode_goes_on_to_show_the_other_cases() -> None:
    source = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n    if n == 2:\n        c.zero_()\n"
    report = judge(source, mode="test")
    assert report.verdict == "wrong_answer" and "case 'two'" in report.message
    assert len(report.cases) == len([c for c in specmod.load("vector_add").tests if not c.gpu_only]) > 2
    assert [c.passed for c in report.cases].count(False) == 1


@pytest.mark.parametrize(
    ("limits", "says"),
    [
        ({"compile_seconds": 0}, "compile_seconds must be a whole number from 1 to 600"),
        ({"compile_seconds": "60"}, "compile_seconds must be a whole number"),
        ({"compile_seconds": 601}, "from 1 to 600"),
        ({"test_seconds": 1.5}, "test_seconds must be a whole number"),
        ({"compile_secs": 60}, "unknown limit 'compile_secs'"),
    ],
)
def test_problem_limits_are_validated(tmp_path: Path, limits: dict[str, Any], says: str) -> None:
    source = specmod.PROBLEMS_DIR / "vector_add"
    target = tmp_path / "vector_add"
    target.mkdir()
    for path in source.rglob("*"):
        if path.is_file():
            (target / path.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
            (target / path.relative_to(source)).write_bytes(path.read_bytes())
    toml = (target / "problem.toml").read_text()
    block = "\n".join(f"{k} = {v!r}".replace("'", '"') for k, v in limits.items())
    start = toml.index("[limits]")
    end = toml.index("\n[", start + 1)
    (target / "problem.toml").write_text(toml[:start] + "[limits]\n" + block + toml[end:])
    with pytest.raises(specmod.ProblemError, match=says):
        specmod.load_problem(target)


@pytest.mark.gpu
def test_on_a_gpu_a_block_sized_from_the_input_stops_at_compile_seconds_naming_the_block(compile_seconds: Any) -> None:
    compile_seconds(10)
    source = """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf"))
            e = tl.exp(x - tl.max(x, 0))
            tl.store(y_ptr + row * n + cols, e / tl.sum(e, 0), mask=cols < n)

        def solve(x, y, m, n):
            softmax_kernel[(m,)](x, y, n, BLOCK=triton.next_power_of_2(n))
    """
    from tests.gpu.gpu_helpers import quick_config

    # The benchmark shapes' rows are wide enough that ptxas takes minutes on a 2^19-2^20 block.
    began = time.monotonic()
    report = judge(source, language="triton", problem="softmax", mode="benchmark", config=quick_config())
    assert report.verdict == "time_limit", report.message
    assert "Triton compiling kernel softmax_kernel[BLOCK=" in report.message
    assert "(compile_seconds)" in report.message
    assert time.monotonic() - began < 120
