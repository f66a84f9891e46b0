"""Every verdict on vector_add, judged for real on the CPU: a child process runs the submission,
the parent decides."""

from __future__ import annotations

import json
import math
import shutil
import time
from typing import Any

import pytest

from judge.harness.child.timing import TimingPolicy
from judge.harness.common.frames import Checked
from judge.harness.languages.cuda import CPU_MESSAGE as CPU_CUDA_MESSAGE
from judge.harness.parent.config import JudgeConfig
from judge.protocol import Progress, Report, ShapeTiming
from tests.judge.judging_helpers import judge

ADD = """
import torch

def solve(a, b, c, n):
    torch.add(a, b, out=c)
"""

TRITON_ADD = """
import triton
import triton.language as tl

@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)

def solve(a, b, c, n):
    add_kernel[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
"""

CUDA_ADD = """
__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" void solve(const float* a, const float* b, float* c, int n) {
    add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
"""

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


def no_host_paths(text: str) -> None:
    assert "/tmp" not in text and "job-" not in text and "/work" not in text, text


def test_a_correct_pytorch_submission_is_accepted_and_reports_each_case_and_its_progress() -> None:
    events: list[Progress] = []
    report = judge(ADD, on_progress=events.append)
    assert report.verdict == "accepted", report.message
    from judge.spec import load

    assert [c.name for c in report.cases] == [c.name for c in load("vector_add").tests if not c.gpu_only]
    assert all(c.passed and c.tolerance["atol"] == 1e-6 for c in report.cases)
    stages = [(e.stage, e.done, e.total) for e in events]
    assert ("testing", 3, len(report.cases)) in stages and stages[-1] == ("done", 1, 1)
    assert report.ranked is False and report.system["device"] == "cpu" and report.system["torch"]
    assert report.benchmarks == [] and report.score_us is None
    json.loads(report.to_json())


@pytest.mark.usefixtures("one_call_a_batch")  # the policy's 4-6 calls are what is timed
def test_a_triton_kernel_is_benchmarked_on_the_cpu_interpreter_unranked() -> None:
    from judge.spec import load

    quick = TimingPolicy(
        warmup_min=1, warmup_max=2, min_reps=4, max_reps=6, max_seconds=5, ci_target_rel=0.5, check_every=2
    )
    source = TRITON_ADD.replace("1024", "16384")  # big blocks: the interpreter is vectorised per block
    report = judge(source, language="triton", mode="benchmark", config=JudgeConfig(device="cpu", policy=quick))
    assert report.verdict == "accepted", report.message
    assert [b.name for b in report.benchmarks] == [c.name for c in load("vector_add").cpu_benchmarks]
    for shape in report.benchmarks:
        assert 4 <= shape.n <= 6 and shape.min_us <= shape.median_us <= shape.p90_us
        assert shape.ci_low_us <= shape.median_us <= shape.ci_high_us
        assert shape.floor_us == 0.0 and shape.sol_pct == 0.0
    expected = math.exp(sum(math.log(b.median_us) for b in report.benchmarks) / len(report.benchmarks))
    assert report.score_us == pytest.approx(expected, rel=1e-3)
    assert report.ranked is False and report.sol_pct is None
    # The CPU host's own roofs, for the roofline only (no floor, no % of speed of light).
    assert set(report.ceilings) == {"dram_gbps", "fp32_tflops", "bf16_tflops", "fp8_tflops"}
    assert all(v > 0 for v in report.ceilings.values())


def test_a_wrong_result_is_a_wrong_answer_with_the_first_mismatches() -> None:
    report = judge("def solve(a, b, c, n):\n    c.copy_(a - b)\n")
    assert report.verdict == "wrong_answer"
    assert "wrong answer on case 'one'" in report.message
    failing = [c for c in report.cases if not c.passed]
    assert len(failing) == len(report.cases) > 1  # every case still runs and is listed
    prime = next(c for c in report.cases if c.name == "prime")
    assert prime.mismatch_count > 8000 and len(prime.mismatches) == 8
    assert prime.mismatches[0].index == [0] and prime.output == "c"
    assert prime.max_abs_err > 0 and prime.rel_l2 > 0


def test_an_unwritten_output_is_a_wrong_answer_that_says_it_was_never_written() -> None:
    report = judge("def solve(a, b, c, n):\n    pass\n")
    assert report.verdict == "wrong_answer"
    assert "c was not written at all" in report.message
    # NaN cannot travel as a JSON number: it is spelled as a string in the report.
    assert report.cases[0].mismatches[0].got == "nan" and report.cases[0].rel_l2 == "inf"
    assert "NaN" not in report.to_json()


def test_a_value_returned_instead_of_written_gets_a_hint() -> None:
    report = judge("def solve(a, b, c, n):\n    return a + b\n")
    assert report.verdict == "wrong_answer" and "returned a value" in report.message


def test_a_python_syntax_error_is_a_compile_error_pointing_at_solution_py() -> None:
    report = judge("def solve(a, b, c, n):\n    c.copy_(a +)\n")
    assert report.verdict == "compile_error"
    assert report.message.startswith("solution.py:2:")
    no_host_paths(report.message)


def test_an_exception_is_a_runtime_error_showing_only_the_users_frames() -> None:
    report = judge(
        """
        def helper(x):
            raise ValueError("bad block size")

        def solve(a, b, c, n):
            helper(a)
        """
    )
    assert report.verdict == "runtime_error"
    assert 'File "solution.py", line 6, in solve' in report.message
    assert 'File "solution.py", line 3, in helper' in report.message
    assert "ValueError: bad block size" in report.message
    assert "harness" not in report.message and "job.py" not in report.message
    no_host_paths(report.message)


def test_an_exception_at_import_is_a_runtime_error() -> None:
    report = judge("import torch\nraise RuntimeError('boom at import')\n")
    assert report.verdict == "runtime_error" and "importing your module" in report.message


def test_a_submission_that_hangs_hits_the_time_limit_and_says_where() -> None:
    config = JudgeConfig(device="cpu", limit_cap_seconds=6)
    report = judge("import time\n\ndef solve(a, b, c, n):\n    time.sleep(60)\n", config=config)
    assert report.verdict == "time_limit"
    assert "6 s" in report.message and "testing case 1/" in report.message and "(one)" in report.message
    assert report.elapsed_s < 20


def test_raising_memory_error_is_a_memory_limit() -> None:
    report = judge("def solve(a, b, c, n):\n    raise MemoryError()\n")
    assert report.verdict == "memory_limit"


def test_a_process_that_exits_early_is_a_runtime_error() -> None:
    report = judge("import os\n\ndef solve(a, b, c, n):\n    os._exit(3)\n")
    assert report.verdict == "runtime_error" and "status 3" in report.message


def test_a_crash_is_a_runtime_error_naming_the_signal() -> None:
    report = judge("import ctypes\n\ndef solve(a, b, c, n):\n    ctypes.string_at(0)\n")
    assert report.verdict == "runtime_error" and "SIGSEGV" in report.message


def test_a_forbidden_call_is_rejected_before_running_with_its_line() -> None:
    source = TRITON_ADD.replace("def solve(a, b, c, n):\n", "def solve(a, b, c, n):\n    torch.add(a, b, out=c)\n")
    report = judge("import torch\n" + source, language="triton")
    assert report.verdict == "rejected"
    assert "torch.add" in report.message and "solution.py:" in report.message


def test_an_unknown_language_is_rejected() -> None:
    report = judge("program x", language="fortran")
    assert report.verdict == "rejected" and "unknown language 'fortran'" in report.message


def test_an_unknown_problem_is_rejected() -> None:
    report = judge(ADD, problem="no_such_problem")
    assert report.verdict == "rejected" and "unknown problem" in report.message


def test_an_oversized_source_is_rejected() -> None:
    report = judge(ADD + "#" * (70 * 1024))
    assert report.verdict == "rejected" and "64 KiB" in report.message


def test_a_job_for_another_problem_version_is_refused_by_the_worker() -> None:
    report = judge(ADD, content_hash="0000000000000000")
    assert report.verdict == "internal_error" and "version mismatch" in report.message


def test_a_python_solve_with_the_wrong_parameters_names_the_expected_signature() -> None:
    report = judge("def solve(a, b):\n    pass\n")
    assert report.verdict == "runtime_error"
    assert "solve(a, b, c, n)" in report.message and "yours is solve(a, b)" in report.message


def test_a_module_without_solve_says_what_to_define() -> None:
    report = judge("def compute(a, b, c, n):\n    pass\n")
    assert report.verdict == "runtime_error" and "solve(a, b, c, n)" in report.message


def test_a_cuda_solve_with_the_wrong_parameters_names_the_expected_signature() -> None:
    source = CUDA_ADD.replace("float* c, int n) {\n    add", "float* c) {\n    int n = 1;\n    add")
    report = judge(source, language="cuda")
    assert report.verdict == "compile_error"
    assert "4 parameters (a, b, c, n)" in report.message and "yours takes 3" in report.message


@needs_nvcc
def test_cuda_that_compiles_on_a_cpu_host_is_rejected_as_not_run() -> None:
    report = judge(CUDA_ADD, language="cuda")
    assert report.verdict == "rejected" and report.message == CPU_CUDA_MESSAGE
    assert report.ranked is False and report.system["device"] == "cpu"


@needs_nvcc
def test_hopper_only_instructions_assemble_for_an_h100_or_h200() -> None:
    # wgmma.fence and setmaxnreg exist only for the sm_90a target: a CPU host compiles for sm_90.
    source = CUDA_ADD.replace(
        "    if (i < n) c[i] = a[i] + b[i];",
        '    asm volatile("wgmma.fence.sync.aligned;");\n'
        '    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");\n'
        "    if (i < n) c[i] = a[i] + b[i];",
    )
    assert source != CUDA_ADD
    report = judge(source, language="cuda")
    assert report.verdict == "rejected" and report.message == CPU_CUDA_MESSAGE, report.compile_log


def test_nvcc_targets_the_architecture_specific_variant_from_hopper_on() -> None:
    from judge.harness.parent.compile import arch_flags

    assert arch_flags("sm_90") == ["-gencode=arch=compute_90a,code=sm_90a"]
    assert arch_flags("sm_100") == ["-gencode=arch=compute_100a,code=sm_100a"]
    assert arch_flags("sm_80") == ["-arch=sm_80"]
    with pytest.raises(ValueError):
        arch_flags("compute_90; rm -rf /")


@needs_nvcc
def test_a_cuda_compile_error_carries_the_compilers_message_without_host_paths() -> None:
    report = judge(CUDA_ADD.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + undefined_thing;"), language="cuda")
    assert report.verdict == "compile_error"
    assert "solution.cu(4): error" in report.compile_log and "undefined_thing" in report.compile_log
    no_host_paths(report.compile_log)


@needs_nvcc
def test_an_error_inside_a_toolkit_header_names_the_header_not_where_the_host_installed_it() -> None:
    broken = "#define __nv_bfloat16_raw int int\n#include <cuda_bf16.h>\n" + CUDA_ADD
    report = judge(broken, language="cuda")
    assert report.verdict == "compile_error"
    assert "cuda_bf16.h(" in report.compile_log, report.compile_log
    assert "/include/" not in report.compile_log and "/usr/" not in report.compile_log, report.compile_log


def test_header_directories_are_dropped_only_where_a_diagnostic_names_a_file() -> None:
    from judge.harness.parent.compile import strip_header_dirs

    log = (
        "In file included from /usr/include/c++/12/vector:63,\n"
        "                 from solution.cu:2:\n"
        "/usr/include/c++/12/bits/stl_vector.h:45:3: error: expected ';'\n"
        "/opt/cuda-13.0/bin/../targets/x86_64-linux/include/cuda_fp16.h(12): error: bad\n"
        "    float r = a/b/c; // see docs/x/y.md\n"
    )
    assert strip_header_dirs(log) == (
        "In file included from vector:63,\n"
        "                 from solution.cu:2:\n"
        "stl_vector.h:45:3: error: expected ';'\n"
        "cuda_fp16.h(12): error: bad\n"
        "    float r = a/b/c; // see docs/x/y.md\n"
    )


def test_cupy_on_a_cpu_host_is_rejected_as_needing_a_gpu() -> None:
    report = judge("import cupy as cp\n\ndef solve(a, b, c, n):\n    pass\n", language="cupy")
    assert report.verdict == "rejected" and "needs a GPU" in report.message


@pytest.mark.parametrize(
    "change",
    [
        "torch.backends.cuda.matmul.allow_tf32 = True",
        "torch.set_float32_matmul_precision('medium')",
        "torch.cuda.Event.elapsed_time = lambda self, end: 0.001",
        "torch.cuda.synchronize = lambda *a, **k: None",
        "torch.cuda._sleep = lambda cycles: None",  # the launch cover
        "torch.sum = lambda *a, **k: None",  # the L2 flush
    ],
)
def test_changing_global_flags_or_the_judges_functions_is_rejected(change: str) -> None:
    report = judge(f"import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n    {change}\n")
    assert report.verdict == "rejected" and "global-state" in report.message


def test_replacing_a_harness_function_or_its_code_is_rejected() -> None:
    source = """
    import torch
    import judge.harness.child.timing as timing
    import judge.harness.common.stats as stats

    def solve(a, b, c, n):
        torch.add(a, b, out=c)
        stats.ci_converged.__code__ = (lambda values, target_rel: True).__code__
    """
    report = judge(source)
    assert report.verdict == "rejected" and "ci_converged.__code__ was replaced" in report.message


def test_a_flag_changed_at_import_time_is_rejected() -> None:
    report = judge("import torch\ntorch.set_float32_matmul_precision('medium')\n" + ADD)
    assert report.verdict == "rejected" and "importing the submission" in report.message


def test_modifying_an_input_is_rejected() -> None:
    report = judge("def solve(a, b, c, n):\n    c.copy_(a + b)\n    a.mul_(2.0)\n")
    assert report.verdict == "rejected" and "inputs-modified" in report.message and "input a" in report.message


def test_no_two_benchmark_calls_see_the_same_inputs() -> None:
    """A result cached by content (or by address) and replayed needs a call whose inputs repeat
    an earlier one's: the pool's sets are regenerated between calls, so none does (this solve
    fails on the first repeat, as a replay cheat would profit from it)."""
    source = """
    import hashlib
    import torch

    _seen = set()

    def solve(a, b, c, n):
        key = hashlib.sha1(a.numpy().tobytes() + b.numpy().tobytes()).hexdigest()
        if key in _seen:
            raise RuntimeError("these inputs came before")
        _seen.add(key)
        torch.add(a, b, out=c)
    """
    report = judge(source, mode="benchmark")
    assert report.verdict == "accepted", report.message
    assert all(shape.n >= 5 for shape in report.benchmarks), report.benchmarks


def test_modifying_inputs_during_the_timed_calls_is_rejected() -> None:
    source = """
    import torch

    def solve(a, b, c, n):
        torch.add(a, b, out=c)
        if not torch.isnan(c).any():  # not on the checked call's poisoned-first path: every call
            a.add_(1.0)
    """
    report = judge(source, mode="benchmark")
    assert report.verdict == "rejected" and "inputs-modified" in report.message, report.message


def test_an_input_modified_in_one_call_whose_set_is_later_regenerated_is_rejected() -> None:
    """One write into an input on the third call of the first benchmark shape, never again: that
    set is used again (and refilled with fresh values) long before the timing ends, so only a
    check between its calls sees the write."""
    source = """
    import torch

    calls = []

    def solve(a, b, c, n):
        torch.add(a, b, out=c)
        if n == 65536:  # the first CPU benchmark shape (no correctness case has this size)
            calls.append(n)
            if len(calls) == 3:
                a[0] += 1.0
    """
    report = judge(source, mode="benchmark")
    assert report.verdict == "rejected" and "inputs-modified" in report.message, report.message


def test_replacing_the_output_tensor_storage_is_rejected() -> None:
    report = judge("def solve(a, b, c, n):\n    c.data = a + b\n")
    assert report.verdict == "rejected" and "tensor-identity" in report.message


def test_forged_bytes_on_the_result_channel_are_rejected() -> None:
    source = """
    import os, sys
    fd = int(sys.argv[sys.argv.index("--out-fd") + 1]) if "--out-fd" in sys.argv else 4

    def solve(a, b, c, n):
        os.write(fd, b"\\xff\\xff\\xff\\xffgarbage")
    """
    report = judge(source)
    assert report.verdict == "rejected" and "malformed" in report.message


def test_a_forged_done_frame_cannot_end_the_judging_early() -> None:
    source = """
    import sys
    from judge.harness.common import framing
    fd = int(sys.argv[sys.argv.index("--out-fd") + 1]) if "--out-fd" in sys.argv else 4
    out = framing.open_writer(fd)
    framing.write_frame(out, {"kind": "done"})

    def solve(a, b, c, n):
        pass
    """
    report = judge(source)
    assert report.verdict == "rejected" and report.verdict != "accepted"


def test_prints_are_returned_as_the_programs_stdout() -> None:
    report = judge("import torch\nprint('hello from import')\n" + ADD)
    assert report.verdict == "accepted" and "hello from import" in report.stdout


def test_every_report_is_plain_json_with_the_protocol_version() -> None:
    report = judge("def solve(a, b, c, n):\n    c.fill_(float('inf'))\n")
    data = json.loads(report.to_json())
    assert data["version"] == 1 and data["verdict"] == "wrong_answer"
    assert Report.from_dict(data).cases[0].max_abs_err == "inf"
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in _floats(data))


def _floats(value: object) -> list[object]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _floats(v)]
    if isinstance(value, list):
        return [x for v in value for x in _floats(v)]
    return [value]


def test_the_secret_never_reaches_the_child() -> None:
    config = JudgeConfig(device="cpu", secret=b"the-worker-" + b"secret-0123456789abcdef")
    # The needle is assembled at run time so the submission's own source does not contain it.
    source = """
    import gc, os, sys

    PARTS = ("the-worker-", "secret-0123456789abcdef")

    def solve(a, b, c, n):
        c.copy_(a + b)
        needle = PARTS[0] + PARTS[1]
        seen = [repr(v) for v in os.environ.values()] + sys.argv
        for obj in gc.get_objects():
            if isinstance(obj, (dict, list, tuple)) and obj is not seen:
                seen.append(repr(obj)[:100000])
        blob = "\\n".join(seen)
        if needle in blob or needle.encode().hex() in blob:
            print("FOUND THE SECRET")
        print("searched", len(seen))
    """
    report = judge(source, config=config)
    assert report.verdict == "accepted", report.message
    assert "searched" in report.stdout and "FOUND" not in report.stdout


def test_the_report_says_where_the_jobs_time_went() -> None:
    report = judge("import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n", mode="benchmark")
    assert report.verdict == "accepted", report.message
    timeline = report.system["timeline_s"]
    events = [event for event, _ in timeline]
    seconds = [at for _, at in timeline]
    assert seconds == sorted(seconds) and seconds[-1] <= report.elapsed_s
    assert events[0] == "checked the source; ceilings" and events[-1] == "cleaned up"
    assert "child ready" in events and "child done" in events
    assert sum(e.startswith("case ") for e in events) == len(report.cases)
    for shape in report.benchmarks:
        assert f"{shape.name}: warmed up" in events and f"{shape.name}: timed" in events
    json.dumps(timeline)  # travels in the report as it is


def test_the_child_imports_triton_before_its_job_arrives() -> None:
    # On a CPU host the warm-up is the import (Triton's compiler and the profiler need a GPU).
    report = judge("import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n")
    assert report.verdict == "accepted", report.message
    warmed = report.system["child_warmed_up"]
    assert list(warmed) == ["start-up", "import triton"], warmed
    assert all(isinstance(seconds, float) and 0 < seconds < 120 for seconds in warmed.values()), warmed


ADD = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"


def judge_logging_spawns(config: JudgeConfig, mode: str) -> tuple[Report, float, list[float]]:
    """Judge ADD with a warm pool (made by a first judging), noting when the pool starts
    processes: (the report, when the judging was called, the spawn times), once every refill has
    settled and the old process has exited (its exit must not start a second one)."""
    assert judge(ADD, config=config).verdict == "accepted"  # creates the pool
    pool = config.pool
    if not pool:
        pytest.skip("no sandbox on this host, so no warm pool")
    spawned: list[float] = []
    spawn = pool._spawn

    def logged_spawn() -> Any:
        spawned.append(time.monotonic())
        return spawn()

    pool._spawn = logged_spawn
    try:
        called = time.monotonic()
        report = judge(ADD, config=config, mode=mode)
        assert report.verdict == "accepted", report.message
        time.sleep(2)
        deadline = time.monotonic() + 30
        while pool._filling and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        pool._spawn = spawn
    assert len(pool._idle) == 1
    return report, called, spawned


def test_a_test_run_starts_the_next_warm_process_while_it_runs_and_only_one() -> None:
    report, called, spawned = judge_logging_spawns(JudgeConfig(device="cpu", limit_cap_seconds=60), "test")
    ready = dict(report.system["timeline_s"])["child ready"]
    # Exactly one replacement, started as the job began (not when its process exited).
    assert len(spawned) == 1 and spawned[0] < called + ready, (spawned, called, ready)


def test_a_benchmark_run_starts_the_next_warm_process_beside_its_tests_and_times_after_it_is_warm() -> None:
    # The child-made inputs of GPU hosts (where the parent owns the memory the flow is the same).
    config = JudgeConfig(device="cpu", limit_cap_seconds=60, parent_memory=False)
    report, called, spawned = judge_logging_spawns(config, "benchmark")
    timeline = dict(report.system["timeline_s"])
    first = report.benchmarks[0].name
    first_checked = next(t for event, t in report.system["timeline_s"] if event.startswith(f"benchmark {first} "))
    assert len(spawned) == 1, spawned
    # Started once the child was ready, before any shape was timed (the timeline rounds to the ms).
    assert called + timeline["child ready"] - 0.001 <= spawned[0] <= called + first_checked, (spawned, called, timeline)
    # A start-up here takes over a second, longer than vector_add's CPU tests: the first timing
    # waited for it, on the judge's clock.
    assert f"waited for a warm child's start-up before timing {first}" in timeline, timeline


def test_a_profile_run_starts_the_next_warm_process_only_after_its_profiler_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from judge.harness.parent.judging import Judging

    # Nsight Compute replays the kernels after the timed run (on a GPU host): nothing may start
    # beside it, so the refill waits for the end of the whole job, not the last shape's times.
    check = Judging.on_checked

    def slow_check(self: Judging, arrived: float, frame: Checked) -> bool:
        if frame.shape is not None:
            time.sleep(0.5)
        return check(self, arrived, frame)

    monkeypatch.setattr(Judging, "on_checked", slow_check)
    report, called, spawned = judge_logging_spawns(JudgeConfig(device="cpu", limit_cap_seconds=60), "profile")
    timeline = dict(report.system["timeline_s"])
    assert len(spawned) == 1, spawned
    assert spawned[0] >= called + timeline["child done"], (spawned, called, timeline)


def test_the_pool_tells_a_warmed_process_from_one_still_starting() -> None:
    config = JudgeConfig(device="cpu", limit_cap_seconds=60)
    assert judge(ADD, config=config).verdict == "accepted"
    pool = config.pool
    if not pool:
        pytest.skip("no sandbox on this host, so no warm pool")
    config.close_pool()
    assert config.pool is None and pool._closed and not pool._idle
    from judge.harness.parent.plan import child_argv, child_env

    pool = config.child_pool(child_argv(), child_env(config), None)  # its one process starts now
    assert pool is not None and pool.warm_idle() == 0  # still importing torch
    deadline = time.monotonic() + 60
    while pool.warm_idle() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool.warm_idle() == 1 and len(pool._idle) == 1


def test_the_childs_warm_up_leaves_nothing_in_the_submissions_stderr() -> None:
    report = judge("import sys, torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n")
    assert report.verdict == "accepted" and report.system["child_warmed_up"]
    assert report.stderr == "", report.stderr


def test_a_large_outputs_arrival_is_a_step_of_the_timeline(monkeypatch: pytest.MonkeyPatch) -> None:
    import judge.harness.parent.conversation as conversation

    monkeypatch.setattr(conversation, "LARGE_OUTPUT_BYTES", 1 << 20)  # the CPU shapes' 4 MiB output counts
    # Outputs sent as frames: the child-made inputs of GPU hosts (parent_memory=False).
    report = judge(ADD, mode="benchmark", config=JudgeConfig(device="cpu", limit_cap_seconds=60, parent_memory=False))
    assert report.verdict == "accepted", report.message
    events = [event for event, _ in report.system["timeline_s"]]
    arrived = [i for i, event in enumerate(events) if event == "output c received (4 MiB)"]
    assert arrived and all(events[i + 1].endswith(": checked") for i in arrived), events


# The sampled check before a shape's timing belongs to the child-made inputs of GPU hosts (where
# the parent owns the memory it reads every output whole).
SAMPLING = JudgeConfig(device="cpu", limit_cap_seconds=60, precheck_sample_bytes=64 << 10, parent_memory=False)


def test_a_shapes_first_check_reads_a_sample_of_a_large_output_and_its_final_check_all_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import judge.harness.parent.conversation as conversation

    monkeypatch.setattr(conversation, "LARGE_OUTPUT_BYTES", 1 << 10)  # every arrival is a timeline step
    report = judge(ADD, mode="benchmark", config=SAMPLING)
    assert report.verdict == "accepted", report.message
    events = [event for event, _ in report.system["timeline_s"]]
    # The 1M shape's 4 MiB output: 64 KiB of it before the timing, all of it after.
    big = [e for e in events if e.startswith("output c received")][-2:]
    assert big == ["output c received (64 KiB)", "output c received (4 MiB)"], events


def test_a_wrong_answer_in_the_sample_stops_before_the_timing_and_names_the_outputs_own_index() -> None:
    source = """
    import torch

    def solve(a, b, c, n):
        torch.add(a, b, out=c)
        if n > 1_000_000:  # the 1M benchmark shape, above every correctness case
            c[n // 2 :] += 1.0
    """
    report = judge(source, mode="benchmark", config=SAMPLING)
    assert report.verdict == "wrong_answer", report.message
    assert "a sample checked before timing" in report.message, report.message
    failed = report.cases[-1]
    n = failed.sizes["n"]
    assert all(n // 2 <= m.index[0] < n for m in failed.mismatches), failed.mismatches
    assert not report.benchmarks and "1M: timed" not in [e for e, _ in report.system["timeline_s"]]


def test_a_wrong_answer_outside_the_sample_is_caught_by_the_final_whole_check() -> None:
    source = """
    import torch

    large_calls = 0

    def solve(a, b, c, n):
        global large_calls
        torch.add(a, b, out=c)
        if n > 1_000_000:
            large_calls += 1
            if large_calls > 1:  # right on the sampled first call, wrong in the timed ones
                c[-1] += 1.0
    """
    report = judge(source, mode="benchmark", config=SAMPLING)
    assert report.verdict == "wrong_answer", report.message
    assert "sample" not in report.message and "input set" in report.message, report.message
    assert report.cases[-1].mismatches[0].index == [report.cases[-1].sizes["n"] - 1]


def test_gpu_memory_beyond_the_problems_limit_is_a_memory_limit_verdict_naming_both_sizes() -> None:
    from judge.harness.child.runner import gpu_memory_over

    assert gpu_memory_over(40 << 30, 40 << 30, "testing case 'n1'") is None
    assert gpu_memory_over(5 << 30, None, "testing case 'n1'") is None
    over = gpu_memory_over((45 << 30) + 1, 40 << 30, "testing case 'n1'")
    assert over is not None and over.verdict == "memory_limit"
    assert "46,080 MiB" in over.message and "40,960 MiB" in over.message and "'n1'" in over.message


def test_the_child_is_told_the_problems_gpu_memory_limit() -> None:
    from judge.harness.parent.config import JudgeConfig
    from judge.harness.parent.plan import make_plan
    from judge.protocol import JudgeJob
    from judge.spec import load

    job = JudgeJob(submission_id="t", attempt=1, problem="paged_attention", language="pytorch", source=ADD, mode="test")
    spec = load("paged_attention")
    plan = make_plan(spec, job, JudgeConfig(device="cpu"))
    assert plan.job.gpu_memory_bytes == spec.limits.gpu_memory_mb << 20 == 64 << 30


def timed_shape(name: str, median_us: float, floor_us: float) -> ShapeTiming:
    sol = round(floor_us / median_us * 100.0, 2) if floor_us > 0 else 0.0
    return ShapeTiming(
        name=name, sizes={"n": 1}, n=10, median_us=median_us, mean_us=median_us, p10_us=median_us,
        p90_us=median_us, min_us=median_us, ci_low_us=median_us, ci_high_us=median_us, flops=0.0, bytes=1.0,
        gbps=1.0, tflops=0.0, sol_pct=sol, floor_us=floor_us,
    )  # fmt: skip


def test_a_latency_bound_shape_below_the_rounding_keeps_the_overall_speed_of_light() -> None:
    from judge.harness.parent.verdict import overall_sol_pct

    # top_p_sampling's one-row shape on the H200: a 0.12 us floor against 2778.5 us, 0.0043%.
    tiny, large = timed_shape("b1", 2778.5, 0.1213), timed_shape("b256", 4286.7, 30.86)
    assert tiny.sol_pct == 0.0
    expected = math.sqrt((0.1213 / 2778.5 * 100) * (30.86 / 4286.7 * 100))
    assert overall_sol_pct([tiny, large]) == pytest.approx(expected, abs=0.006)
    assert overall_sol_pct([tiny, timed_shape("cpu", 10.0, 0.0)]) is None  # a shape without a floor
    assert overall_sol_pct([]) is None
