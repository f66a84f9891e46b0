"""The sandbox API as the harness uses it (docs/interfaces.md): run/start/Job, WarmPool,
run_collect, capabilities, and the degraded modes."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from sandbox import Limits, SandboxError, WarmPool, capabilities, cgroups, run, start, write_new_file
from sandbox.layers import ALL_LAYERS
from sandbox.plan import REPO
from sandbox.seccomp import build_program
from tests.sandbox.helpers import SMALL, need

PY = sys.executable


def py(code: str) -> list[str]:
    return [PY, "-c", code]


def test_run_returns_the_exit_code_stdout_and_stderr() -> None:
    result = run(py("import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"), limits=SMALL)
    assert (result.exit_code, result.signal, result.limit_hit) == (3, None, None)
    assert result.stdout == "out\n" and result.stderr == "err\n"
    assert not result.stdout_truncated and not result.stderr_truncated
    assert not result.ok


def test_a_death_by_signal_reports_the_signal_and_no_exit_code() -> None:
    result = run(py("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"), limits=SMALL)
    assert result.exit_code is None and result.signal == signal.SIGSEGV
    assert result.limit_hit is None


def test_pass_fds_become_fd_3_and_4_in_the_child_in_order() -> None:
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    code = "import os; data = os.read(3, 100); os.write(4, data.upper())"
    job = start(py(code), limits=SMALL, pass_fds=(job_r, res_w))
    os.close(job_r)
    os.close(res_w)
    os.write(job_w, b"hello")
    os.close(job_w)
    assert os.read(res_r, 100) == b"HELLO"
    assert job.wait().exit_code == 0
    os.close(res_r)


def test_no_other_descriptor_of_the_parent_leaks_into_the_child() -> None:
    keep_r, keep_w = os.pipe()  # an fd the parent holds but does not pass
    try:
        result = run(py("import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))"), limits=SMALL)
    finally:
        os.close(keep_r)
        os.close(keep_w)
    assert json.loads(result.stdout) == [0, 1, 2, 3]  # 3 is listdir's own directory fd


def test_stdin_bytes_reach_the_child() -> None:
    result = run(py("import sys; print(sys.stdin.read()[::-1])"), limits=SMALL, stdin=b"abc")
    assert result.stdout == "cba\n"


def test_the_environment_is_scrubbed_and_the_callers_variables_are_added(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKER_ONLY", "x")
    result = run(py("import os, json; print(json.dumps(dict(os.environ)))"), limits=SMALL, env={"JOB_SEED": "7"})
    env = json.loads(result.stdout)
    assert "WORKER_ONLY" not in env and env["JOB_SEED"] == "7"
    assert env["HOME"] == "/tmp" and env["PYTHONSAFEPATH"] == "1"


def test_the_child_is_an_unprivileged_user_without_capabilities_under_seccomp() -> None:
    need("uid_drop", "caps_dropped", "no_new_privs", "seccomp")
    result = run(["sh", "-c", "id -u; id -G; grep -E '^(Cap|NoNewPrivs|Seccomp:)' /proc/self/status"], limits=SMALL)
    lines = result.stdout.split("\n")
    assert lines[0] == "65534" and lines[1] == "65534"
    status = dict(line.split(":\t") for line in lines[2:] if line)
    assert {status[k] for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")} == {"0000000000000000"}
    assert status["NoNewPrivs"] == "1" and status["Seccomp"] == "2"


def test_each_job_has_its_own_private_tmp_and_hostname() -> None:
    need("private_tmp", "utsns")
    first = run(["sh", "-c", "echo secret > /tmp/left-behind; hostname"], limits=SMALL)
    second = run(["sh", "-c", "ls -A /tmp; hostname"], limits=SMALL)
    assert first.stdout == "sandbox\n"
    # /tmp may hold mount points of bound code when the checkout itself lives under /tmp (a CI
    # clone): what matters is that the first job's file is gone.
    *tmp_entries, hostname = second.stdout.splitlines()
    assert hostname == "sandbox"
    assert "left-behind" not in tmp_entries
    assert all(entry != "" and (Path("/tmp") / entry).exists() for entry in tmp_entries), tmp_entries


def test_dev_holds_only_harmless_nodes_without_a_gpu() -> None:
    need("minimal_dev")
    result = run(["ls", "/dev"], limits=SMALL)
    assert set(result.stdout.split()) == {
        "fd",
        "full",
        "null",
        "random",
        "shm",
        "stderr",
        "stdin",
        "stdout",
        "urandom",
        "zero",
    }


def test_the_view_holds_the_python_environment_and_judge_code_but_not_the_rest_of_the_repo() -> None:
    need("readonly_root")
    result = run(["ls", "-A", str(REPO)], limits=SMALL)
    assert set(result.stdout.split()) <= {"judge", "sandbox", ".venv"}
    assert "judge" in result.stdout.split()


def test_start_returns_at_once_and_kill_ends_the_whole_tree() -> None:
    job = start(["sh", "-c", "sleep 100 & sleep 100 & wait"], limits=SMALL)
    time.sleep(0.2)
    assert job.poll() is None
    job.kill()
    result = job.wait(10)
    assert result.signal == signal.SIGKILL and result.limit_hit is None


def test_wait_with_a_timeout_raises_while_the_job_runs_and_the_limit_still_applies() -> None:
    job = start(["sleep", "100"], limits=dataclasses.replace(SMALL, wall_seconds=1))
    with pytest.raises(TimeoutError):
        job.wait(0.2)
    assert job.wait(10).limit_hit == "wall"


def test_a_program_that_cannot_be_executed_raises_a_sandbox_error() -> None:
    with pytest.raises(SandboxError, match="no-such-program"):
        start(["no-such-program"], limits=SMALL)


def test_limits_refuse_values_that_are_not_positive() -> None:
    with pytest.raises(ValueError, match="wall_seconds"):
        Limits(wall_seconds=0)


def test_cpu_time_and_peak_memory_are_measured_by_the_parent() -> None:
    code = "x = bytearray(64 << 20)\nt = 0\nfor i in range(3_000_000): t += i"
    result = run(py(code), limits=SMALL)
    assert result.exit_code == 0
    assert result.cpu_seconds > 0.05
    assert result.peak_memory_bytes is not None and result.peak_memory_bytes >= 64 << 20
    assert result.wall_seconds >= result.cpu_seconds * 0.5


def test_the_jobs_cgroup_is_removed_after_the_job() -> None:
    need("cgroup_kill")
    lay = cgroups.layout()
    # This process's jobs only: other judges on the host (the site's suite runs beside this one)
    # make and remove their own.
    mine = f"job-{os.getpid()}-*"
    before = {p.name for p in lay.v2_base.glob(mine)} if lay.v2_base else set()
    run(["true"], limits=SMALL)
    after = {p.name for p in lay.v2_base.glob(mine)} if lay.v2_base else set()
    assert after <= before


def test_jobs_running_at_the_same_time_do_not_see_each_other() -> None:
    results: list = []

    def one(tag: str) -> None:
        results.append(
            run(
                ["sh", "-c", f"echo {tag} > /tmp/tag; sleep 0.5; read t < /tmp/tag; set -- /proc/[0-9]*; echo $t $#"],
                limits=SMALL,
            )
        )

    threads = [threading.Thread(target=one, args=(t,)) for t in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.stdout.split()[0] for r in results) == ["a", "b", "c"]
    if "pidns" in capabilities():
        # Counted by the shell's own glob, so no helper process races the count: its sh alone.
        assert {r.stdout.split()[1] for r in results} == {"1"}


# --- the warm pool -------------------------------------------------------------------------

ECHO_CHILD = "import os, sys\nready = True\ndata = os.read(3, 1000)\nos.write(4, data[::-1])\nprint('served')"


def test_the_warm_pool_hands_over_a_started_process_that_serves_one_job() -> None:
    with WarmPool(py(ECHO_CHILD), limits=SMALL) as pool:
        warm = pool.take()
        warm.channel_out.write(b"job-1")
        warm.channel_out.close()
        assert warm.channel_in.read() == b"1-boj"
        result = warm.wait(10)
        assert result.exit_code == 0 and result.stdout == "served\n"


def test_a_warm_process_is_single_use_and_the_pool_refills_after_the_job() -> None:
    with WarmPool(py(ECHO_CHILD), limits=SMALL) as pool:
        first = pool.take()
        first.channel_out.write(b"a")
        first.channel_out.close()
        first.wait(10)
        deadline = time.monotonic() + 10
        while not pool._idle and time.monotonic() < deadline:
            time.sleep(0.05)
        second = pool.take()
        assert second.pid != first.pid
        second.channel_out.write(b"b")
        second.channel_out.close()
        assert second.channel_in.read() == b"b"
        second.wait(10)


def test_a_warm_jobs_wall_clock_starts_when_it_is_taken() -> None:
    limits = dataclasses.replace(SMALL, wall_seconds=1)
    with WarmPool(py(ECHO_CHILD), limits=limits) as pool:
        time.sleep(1.5)  # idle in the pool longer than the wall limit: no overrun yet
        warm = pool.take()
        assert warm.job.poll() is None
        result = warm.wait(10)  # never handed a job: killed 1 s after take
        assert result.limit_hit == "wall"
        assert 1 <= result.wall_seconds < 3


def test_a_warm_process_that_died_is_replaced_at_take(caplog: pytest.LogCaptureFixture) -> None:
    with WarmPool(py("import sys; sys.exit(5)"), limits=SMALL) as pool:
        dead = pool._idle[0]
        dead.wait(10)
        warm = pool.take()
        assert warm.pid != dead.pid
        assert "a warm process died before its job" in caplog.text
        assert warm.wait(10).exit_code == 5


def test_a_warm_job_is_killed_at_its_cpu_limit_counted_from_take() -> None:
    need("cgroup_cpu")
    child = "import os\nt = 0\nfor i in range(4_000_000): t += i\nos.read(3, 1)\nwhile True: pass"
    with WarmPool(py(child), limits=dataclasses.replace(SMALL, cpu_seconds=1)) as pool:
        time.sleep(2)  # warm-up CPU does not count against the job
        warm = pool.take()
        warm.channel_out.write(b"go")
        warm.channel_out.close()
        result = warm.wait(15)
        assert result.limit_hit == "cpu"
        assert 1 <= result.cpu_seconds < 3


# --- build steps and trusted caches --------------------------------------------------------


def test_run_collect_brings_back_a_compilers_output_through_a_pipe() -> None:
    from sandbox import run_collect

    result, files, errors = run_collect(
        ["gcc", "-shared", "-fPIC", "-o", "k.so", "k.c"],
        limits=dataclasses.replace(SMALL, wall_seconds=60),
        files={"k.c": b"int answer(void) { return 42; }\n"},
        collect=["k.so"],
    )
    assert result.exit_code == 0, result.stderr
    assert files["k.so"][:4] == b"\x7fELF" and errors == {}


def test_write_new_file_replaces_a_planted_symlink_instead_of_following_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "k.so").symlink_to(victim)
    write_new_file(str(cache), "k.so", b"compiled")
    assert victim.read_text() == "keep"
    assert (cache / "k.so").read_bytes() == b"compiled" and not (cache / "k.so").is_symlink()
    with pytest.raises(ValueError):
        write_new_file(str(cache), "../escape", b"x")


# --- capabilities and degraded hosts -------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="the full set of layers needs root")
def test_on_a_root_host_with_cgroups_every_layer_is_active() -> None:
    caps = capabilities()
    expected = set(ALL_LAYERS)
    if not cgroups.layout().any:
        expected -= {"cgroup_memory", "cgroup_pids", "cgroup_kill", "cgroup_cpu"}
    assert set(caps.active()) >= expected, caps.missing()


def _in_fresh_process(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-c", code],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_host_without_namespaces_or_cgroups_degrades_with_a_warning_and_still_limits_cpu() -> None:
    code = (
        "import json, logging, sys\n"
        "logging.basicConfig()\n"
        "from sandbox import Limits, run, capabilities\n"
        "caps = capabilities()\n"
        # sh, not this Python: without a mount namespace uid 65534 cannot reach a Python under /root
        "r = run(['sh', '-c', 'while :; do :; done'], limits=Limits(cpu_seconds=1, wall_seconds=20))\n"
        "ok = run(['sh', '-c', 'echo fine'], limits=Limits())\n"
        "print(json.dumps({'missing': sorted(caps.missing()), 'limit': r.limit_hit, 'ok': ok.stdout}))\n"
    )
    done = _in_fresh_process(code, GRIDSTRIDE_SANDBOX_DISABLE="namespaces,cgroup")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert "netns" in out["missing"] and "cgroup_memory" in out["missing"]
    assert "seccomp" not in out["missing"] and "uid_drop" not in out["missing"]
    assert out["limit"] == "cpu" and out["ok"] == "fine\n"
    assert "running WITHOUT these layers" in done.stderr


def test_required_layers_that_are_missing_refuse_to_run() -> None:
    code = "from sandbox import capabilities\ncapabilities()\n"
    done = _in_fresh_process(code, GRIDSTRIDE_SANDBOX_DISABLE="netns", GRIDSTRIDE_SANDBOX_REQUIRE="all")
    assert done.returncode != 0
    assert "required sandbox layers are missing: netns" in done.stderr


def test_the_seccomp_filter_checks_the_architecture_first() -> None:
    program = build_program()
    assert len(program) % 8 == 0
    first_jump_constant = int.from_bytes(program[12:16], "little")
    assert first_jump_constant == 0xC000003E  # AUDIT_ARCH_X86_64; anything else is killed


def test_a_job_dies_with_the_worker_that_started_it() -> None:
    code = (
        "import sys, time\n"
        "from sandbox import Limits, start\n"
        "job = start(['sh', '-c', 'echo $$; exec sleep 1000'], limits=Limits(wall_seconds=600))\n"
        "print(job.pid, flush=True)\n"
        "time.sleep(1000)\n"
    )
    worker = subprocess.Popen(
        [PY, "-c", code], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, text=True
    )
    assert worker.stdout is not None
    launcher = int(worker.stdout.readline())
    worker.kill()  # SIGKILL: no cleanup code of the worker runs
    worker.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{launcher}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    status = Path(f"/proc/{launcher}/status")
    assert not status.exists() or "zombie" in status.read_text()


def test_refill_soon_starts_one_process_however_often_it_is_asked() -> None:
    with WarmPool(py(ECHO_CHILD), limits=SMALL) as pool:
        first = pool.take()
        for _ in range(5):  # the judge asks at the start of a test run and again at its end
            pool.refill_soon()
        second = pool.take()  # waits for the refill being spawned instead of starting another
        assert second.pid != first.pid
        assert not pool._idle and pool._filling == 0
        for warm, data in ((first, b"a"), (second, b"b")):
            warm.channel_out.write(data)
            warm.channel_out.close()
            assert warm.channel_in.read() == data
            warm.wait(10)


# Says it is warm (a byte on fd 4, as the judge's child sends its "warm" frame) after a start-up.
WARMING_CHILD = "import os, time\ntime.sleep(0.4)\nos.write(4, b'w')\ndata = os.read(3, 1000)\nos.write(4, data[::-1])"


def serve(warm: Any, data: bytes) -> None:
    assert warm.channel_in.read(1) == b"w"
    warm.channel_out.write(data)
    warm.channel_out.close()
    assert warm.channel_in.read() == data[::-1]
    warm.wait(10)


def test_a_pool_of_two_starts_one_process_at_a_time_and_fills_up_while_idle() -> None:
    with WarmPool(py(WARMING_CHILD), limits=SMALL, size=2) as pool:
        assert len(pool._idle) == 1 and pool.starting() == 1  # the second waits for the first
        starts = []
        deadline = time.monotonic() + 10
        while pool.warm_idle() < 2 and time.monotonic() < deadline:
            starts.append(pool.starting())
            time.sleep(0.01)
        assert pool.warm_idle() == 2 and len(pool._idle) == 2
        assert max(starts) == 1  # never two start-ups at once
        serve(pool.take(), b"a")
        serve(pool.take(), b"b")


def test_a_job_right_behind_another_takes_a_warm_process_while_the_refill_starts() -> None:
    with WarmPool(py(WARMING_CHILD), limits=SMALL, size=2) as pool:
        # One start-up at a time: the second begins only after the first has settled, so a
        # moment with none starting comes between them.
        deadline = time.monotonic() + 20
        while pool.warm_idle() < 2 and time.monotonic() < deadline:
            assert pool.wait_settled(10) and pool.starting() <= 1
            time.sleep(0.01)
        assert pool.warm_idle() == 2
        pool.hold()  # the owner judges: nothing starts on its own
        first = pool.take()
        assert first.was_warm
        pool.refill_soon()  # the first job's safe point: one replacement starts
        pool.refill_soon()  # asked again while it starts: still one
        assert pool.starting() == 1
        second = pool.take()  # right behind: the other warm process, no start-up to wait for
        assert second.was_warm and second.pid != first.pid
        # Before the second job times anything it waits for the replacement's start-up.
        assert pool.starting() == 1 and pool.wait_settled(10) and pool.starting() == 0
        serve(first, b"a")  # its exit starts nothing beside the second job (held, and taken)
        time.sleep(0.3)
        assert pool.starting() == 0 and len(pool._idle) == 1
        serve(second, b"b")
        pool.release()  # idle and short: it fills up again, one start-up at a time
        deadline = time.monotonic() + 10
        while pool.warm_idle() < 2 and time.monotonic() < deadline:
            assert pool.starting() <= 1
            time.sleep(0.01)
        assert pool.warm_idle() == 2


def test_a_process_ending_while_the_next_job_runs_starts_nothing_beside_it() -> None:
    """The judge takes the next process before the last one's exit is reaped: a refill then
    would start (CUDA context, warm-up kernels) beside the running job's timed calls."""
    with WarmPool(py(ECHO_CHILD), limits=SMALL) as pool:
        first = pool.take()
        pool.refill_soon()  # the judge's refill once the first job's timing is over
        second = pool.take()
        first.channel_out.write(b"a")
        first.channel_out.close()
        first.wait(10)  # reaped while the second job runs
        time.sleep(0.5)
        assert not pool._idle and pool._filling == 0
        second.channel_out.write(b"b")
        second.channel_out.close()
        second.wait(10)
        deadline = time.monotonic() + 10  # with nothing running, the pool refills as before
        while not pool._idle and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(pool._idle) == 1
