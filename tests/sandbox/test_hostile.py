"""Hostile programs (tests/sandbox/hostile/) run through the sandbox API.

Each test checks the verdict-relevant outcome (which limit was hit, what the program could and
could not do) and, through the `then_an_ordinary_job_still_works` fixture, that the worker
survives and the next ordinary job is judged correctly. GPU cases are in test_gpu_hostile.py.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from sandbox import capabilities, run, run_collect
from sandbox.plan import REPO, staging_dir
from tests.sandbox.helpers import HOSTILE, SMALL, hostile, need, report

pytestmark = pytest.mark.usefixtures("then_an_ordinary_job_still_works")


# --- processes, CPU, time, memory ----------------------------------------------------------


def test_a_fork_bomb_is_stopped_at_the_process_limit_and_the_tree_is_killed() -> None:
    need("pidns")
    started = time.monotonic()
    result = hostile("fork_bomb.py", limits=dataclasses.replace(SMALL, cpu_seconds=2, max_processes=32))
    assert result.limit_hit in ("processes", "cpu", "wall")
    if "cgroup_pids" in capabilities():
        assert result.limit_hit == "processes"
        assert "process limit of 32 reached" in result.stderr
    assert result.exit_code is None and result.signal == signal.SIGKILL
    assert time.monotonic() - started < SMALL.wall_seconds + 10


def test_a_thread_bomb_counts_against_the_process_limit() -> None:
    need("cgroup_pids")
    result = hostile("thread_bomb.py", limits=dataclasses.replace(SMALL, max_processes=40))
    assert result.limit_hit == "processes"
    assert "can't start new thread" in result.stderr
    started = int(result.stdout.split(":")[-1])
    assert started < 40


def test_an_infinite_cpu_loop_is_killed_at_the_cpu_limit() -> None:
    result = hostile("cpu_loop.py", limits=dataclasses.replace(SMALL, cpu_seconds=1))
    assert result.limit_hit == "cpu"
    assert result.exit_code is None
    assert 1.0 <= result.cpu_seconds < 4
    assert "CPU time limit of 1 s exceeded" in result.stderr


def test_a_program_that_sleeps_forever_is_killed_at_the_wall_clock_limit() -> None:
    result = hostile("sleep_forever.py", limits=dataclasses.replace(SMALL, wall_seconds=1.5))
    assert result.limit_hit == "wall"
    assert result.signal == signal.SIGKILL
    assert 1.5 <= result.wall_seconds < 5
    assert result.cpu_seconds < 1
    assert "wall-clock limit of 1.5 s exceeded" in result.stderr


def test_an_atexit_hook_that_never_returns_is_killed_at_the_wall_clock_limit() -> None:
    result = hostile("atexit_hang.py", limits=dataclasses.replace(SMALL, wall_seconds=1.5))
    assert result.limit_hit == "wall"
    assert result.stdout == "main done\n"


def test_a_host_memory_bomb_is_killed_at_the_memory_limit() -> None:
    need("cgroup_memory")
    result = hostile("memory_bomb.py", limits=dataclasses.replace(SMALL, memory_bytes=200 << 20))
    assert result.limit_hit == "memory"
    assert result.signal == signal.SIGKILL
    assert result.peak_memory_bytes is not None and result.peak_memory_bytes <= (200 << 20) + (1 << 20)
    assert "memory limit of 200 MiB exceeded" in result.stderr


# --- disks and output ----------------------------------------------------------------------


def test_filling_tmp_stops_at_its_size_and_nothing_reaches_the_host_disk() -> None:
    need("private_tmp", "minimal_dev")
    free_before = shutil.disk_usage("/").free
    outcome = report(hostile("disk_fill_tmp.py"))
    for d in ("/tmp", "/dev/shm"):
        assert outcome[d]["error"] == "ENOSPC"
        assert SMALL.tmp_bytes - (8 << 20) <= outcome[d]["written"] <= SMALL.tmp_bytes
    assert abs(shutil.disk_usage("/").free - free_before) < (256 << 20)  # others share this disk


def test_nothing_outside_tmp_is_writable() -> None:
    need("readonly_root")
    outcome = report(hostile("disk_fill_elsewhere.py", str(REPO), str(REPO / "judge"), str(HOSTILE)))
    written = {path for path, how in outcome.items() if how == "written"}
    assert written == set(), outcome
    assert set(outcome.values()) <= {"EROFS", "ENOENT", "EACCES"}


def test_a_file_past_the_file_size_limit_fails_with_efbig_in_python() -> None:
    limits = dataclasses.replace(SMALL, max_file_bytes=4 << 20, tmp_bytes=64 << 20)
    outcome = report(hostile("big_file.py", limits=limits))
    assert outcome == {"error": "EFBIG", "written": 4 << 20}


def test_a_file_past_the_file_size_limit_kills_a_program_that_keeps_sigxfsz() -> None:
    limits = dataclasses.replace(SMALL, max_file_bytes=4 << 20, tmp_bytes=64 << 20)
    result = run(["sh", "-c", "exec head -c 100000000 /dev/zero > /tmp/big"], limits=limits)
    assert result.signal == signal.SIGXFSZ
    assert result.limit_hit == "output"
    assert "file size limit of 4194304 bytes exceeded" in result.stderr


def test_gigabytes_of_stdout_are_capped_and_the_job_is_killed_as_a_flood() -> None:
    result = hostile("stdout_flood.py")
    assert result.limit_hit == "output"
    assert result.stdout_truncated
    assert len(result.stdout) < SMALL.max_output_bytes + 200
    assert result.stdout.startswith("A" * 100)
    assert "output truncated at 4096 bytes" in result.stdout


def test_output_past_the_cap_is_dropped_with_a_note_and_the_job_still_succeeds() -> None:
    result = hostile("stdout_flood.py", str(200 << 10))
    assert result.exit_code == 0 and result.limit_hit is None
    assert result.stdout_truncated and not result.stderr_truncated
    assert f"{(200 << 10) - 4096} more bytes dropped" in result.stdout
    assert result.stderr == "stderr still works\n"


def test_the_open_file_limit_holds() -> None:
    outcome = report(hostile("fd_exhaustion.py", limits=dataclasses.replace(SMALL, max_open_files=100)))
    assert outcome["error"] == "EMFILE"
    assert outcome["opened"] < 100


# --- network (these programs only ever run inside a network namespace) -----------------------


def test_tcp_to_the_database_redis_and_site_ports_on_localhost_fails() -> None:
    need("netns")  # without it the program would reach real services: never run it then
    outcome = report(hostile("net_localhost.py"))
    assert "connected" not in outcome.values(), outcome
    for port in ("5432", "6379", "8000"):
        assert outcome[port] in ("EAFNOSUPPORT", "ENETUNREACH", "ECONNREFUSED", "EADDRNOTAVAIL")
        if "seccomp" in capabilities():
            assert outcome[port] == "EAFNOSUPPORT"  # the socket itself is refused


def test_tcp_and_udp_to_an_outside_address_fail_with_no_interface_but_a_down_loopback() -> None:
    need("netns")  # never send anything off this machine: no network namespace, no run
    outcome = report(hostile("net_outside.py"))
    expected = "EAFNOSUPPORT" if "seccomp" in capabilities() else "ENETUNREACH"
    assert (outcome["tcp"], outcome["udp"]) == (expected, expected)
    assert outcome["interfaces"] == ["lo"]  # if_nameindex: NETLINK_ROUTE works, and sees only lo


def test_only_unix_and_route_netlink_sockets_open_of_all_families_0_to_45() -> None:
    need("netns", "seccomp")
    outcome = report(hostile("socket_families.py"))
    # A family's entry is one answer for all four types, or the answer per type.
    answers = {f: set(got.values()) if isinstance(got, dict) else {got} for f, got in outcome["socket"].items()}
    opened = {int(family) for family, got in answers.items() if "ok" in got}
    assert opened == {1, 16}, outcome["socket"]
    for family, got in outcome["socket"].items():
        if int(family) not in opened:
            # Refused by the filter, the same answer for every type: not by whichever kernel module.
            assert got == "EAFNOSUPPORT", (family, got)
    assert outcome["socket"]["40"] == "EAFNOSUPPORT"  # AF_VSOCK: the host's port space
    assert {f for f, got in outcome["socketpair"].items() if got == "ok"} == {"1"}
    assert outcome["netlink"] == {"0": "ok", "4": "EPROTONOSUPPORT", "9": "EPROTONOSUPPORT", "15": "EPROTONOSUPPORT"}


def test_a_dns_lookup_fails() -> None:
    need("netns")
    outcome = report(hostile("dns_lookup.py"))
    assert outcome["dns"] == "gaierror"


# --- secrets -------------------------------------------------------------------------------


def test_system_and_root_secrets_and_the_launcher_are_not_readable() -> None:
    need("readonly_root", "uid_drop", "fresh_proc")
    outcome = report(hostile("read_secrets.py"))
    assert not any(v.startswith("read:") for v in outcome.values()), outcome


def test_the_site_source_settings_and_database_are_invisible() -> None:
    need("readonly_root")
    paths = [
        REPO / "platform" / "gridstride" / "settings.py",
        REPO / "var" / "gridstride.sqlite3",
        REPO / "manage.py",
        REPO / ".git" / "config",
        REPO / "reference_kernels" / "vector_add" / "reference.py",
    ]
    outcome = report(hostile("read_secrets.py", *map(str, paths)))
    for path in paths:
        assert outcome[str(path)] == "ENOENT", outcome


def test_other_submissions_reference_outputs_and_hidden_shapes_are_invisible(tmp_path: Path) -> None:
    need("readonly_root")
    other = tmp_path / "submissions" / "41" / "solution.py"
    other.parent.mkdir(parents=True)
    other.write_text("SECRET-OTHER-SUBMISSION")
    reference = tmp_path / "reference_outputs.bin"
    reference.write_bytes(b"SECRET-REFERENCE")
    shapes = REPO / "problems" / "vector_add" / "problem.toml"
    outcome = report(hostile("read_secrets.py", str(other), str(reference), str(shapes)))
    assert {outcome[str(p)] for p in (other, reference, shapes)} == {"ENOENT"}


def test_the_judge_secret_file_is_hidden_even_inside_a_readable_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need("readonly_root")
    secret = tmp_path / "judge.key"
    secret.write_text("SECRET-SEED-0123456789")
    (tmp_path / "public.txt").write_text("public")
    tmp_path.chmod(0o755)  # readable paths must be readable by the sandbox's uid
    monkeypatch.setenv("GRIDSTRIDE_JUDGE_SECRET_FILE", str(secret))
    result = hostile(
        "read_secrets.py", str(secret), str(tmp_path / "public.txt"), readable=[str(HOSTILE), str(tmp_path)]
    )
    outcome = report(result)
    assert "SECRET-SEED" not in result.stdout
    assert outcome[str(secret)] in ("read:", "ENOENT", "EACCES")
    assert outcome[str(tmp_path / "public.txt")] == "read:public"


def test_environment_secrets_of_the_worker_do_not_reach_the_job(monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {
        "SECRET_KEY": "django-insecure-SECRET1",
        "DATABASE_URL": "postgres://gridstride:SECRET2@db/gridstride",
        "CELERY_BROKER_URL": "redis://:SECRET3@redis:6379/0",
        "REDIS_PASSWORD": "SECRET4",
        "AWS_SECRET_ACCESS_KEY": "SECRET5",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    result = hostile("env_secrets.py")
    outcome = report(result)
    assert "SECRET" not in result.stdout
    assert not set(secrets) & set(outcome["environ"])
    assert outcome["environ"]["HOME"] == "/tmp"


# --- integrity of the judge ----------------------------------------------------------------


def test_the_repository_the_judge_code_and_problems_cannot_be_written() -> None:
    need("readonly_root")
    targets = [REPO, REPO / "judge", REPO / "sandbox", REPO / "problems", REPO / "problems" / "vector_add"]
    outcome = report(hostile("write_repo.py", *map(str, targets)))
    assert "written" not in outcome.values(), outcome
    for target in targets:
        assert not (target / "planted_by_submission.py").exists()


def test_a_torch_py_in_the_working_directory_does_not_shadow_the_real_module() -> None:
    outcome = report(hostile("shadow_modules.py"))
    assert outcome["torch_origin"] and "site-packages" in outcome["torch_origin"]
    assert outcome["child_rc"] == 0, outcome
    assert outcome["child_json"].endswith("json/__init__.py")


def test_signals_cannot_reach_the_parent_pid_1_or_any_process_outside() -> None:
    need("pidns", "uid_drop")
    outcome = report(hostile("kill_others.py", str(os.getpid()), str(os.getppid())))
    assert outcome["ppid"] == "EPERM" and outcome["pid1"] == "EPERM"
    assert outcome["host_pid_0"] == "ESRCH" and outcome["host_pid_1"] == "ESRCH"
    assert len(outcome["visible_pids"]) == 1  # only itself: init is hidden, the host invisible


def _host_processes_named(comm: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == comm:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def test_a_daemon_left_behind_is_killed_when_the_job_ends() -> None:
    started = time.monotonic()
    result = hostile("daemon.py")
    assert result.exit_code == 0 and result.limit_hit is None
    assert time.monotonic() - started < 5  # not held open by the daemon's copy of stdout
    assert _host_processes_named("gs-hostile-daemon") == []


def test_ptrace_and_process_vm_readv_are_denied() -> None:
    need("seccomp")
    outcome = report(hostile("ptrace_parent.py"))
    assert set(outcome.values()) == {"EPERM"}, outcome


def test_proc_shows_only_the_jobs_own_processes_and_no_host_mounts() -> None:
    need("pidns", "fresh_proc", "cgroupns")
    outcome = report(hostile("proc_snoop.py"))
    assert outcome["pids"] == [outcome["self"]]
    assert all(outcome[k] in ("ENOENT", "EACCES") for k in ("1/environ", "1/cmdline", "1/maps"))
    assert outcome["cmdline"] == "read:"  # the host's boot arguments are masked by an empty file
    assert outcome["cgroup"].endswith("::/")


def test_mount_chroot_setuid_and_new_namespaces_are_denied() -> None:
    need("uid_drop", "seccomp")
    outcome = report(hostile("escape_attempts.py"))
    assert "ok" not in outcome.values(), outcome


def test_the_kernels_large_attack_surfaces_are_denied_but_memfd_create_works() -> None:
    need("seccomp")
    outcome = report(hostile("seccomp_denied.py"))
    assert outcome.pop("memfd_create") == "ok"
    assert set(outcome.values()) == {"EPERM"}, outcome


def test_planted_symlinks_hard_links_and_fifos_never_reach_the_host(tmp_path: Path) -> None:
    need("readonly_root")
    victim = tmp_path / "victim.txt"
    victim.write_text("host file")
    before = victim.stat()
    outcome = report(hostile("plant_links.py", str(victim), "/etc/passwd"))
    assert outcome["/tmp/hard1"] == "EXDEV"  # /etc/passwd is not on the job's file system
    assert outcome["/run/gridstride-sandbox"] == "ENOENT"
    assert victim.read_text() == "host file" and victim.stat().st_mtime == before.st_mtime
    assert os.listdir(staging_dir()) == []  # the launcher's mount point holds nothing on the host


def test_collected_outputs_refuse_planted_links_fifos_and_path_names() -> None:
    script = "ln -s /etc/passwd out.so; mkfifo fifo.so; ln input.cu hard.so; echo ok > good.so"
    result, files, errors = run_collect(
        ["sh", "-c", script],
        limits=SMALL,
        files={"input.cu": b"// source"},
        collect=["out.so", "fifo.so", "hard.so", "good.so", "../../etc/passwd"],
    )
    assert result.exit_code == 0
    assert files == {"good.so": b"ok\n"}
    assert set(errors) == {"out.so", "fifo.so", "hard.so", "../../etc/passwd"}


def test_import_time_and_atexit_code_cannot_forge_the_outcome() -> None:
    result = hostile("forge_verdict.py")
    assert result.exit_code == 3  # measured by the trusted side, not taken from the text
    assert report(result)["writable_fds"] == []  # no channel of the launcher is reachable


# --- compilation ---------------------------------------------------------------------------

COMPILE = dataclasses.replace(SMALL, cpu_seconds=4, wall_seconds=30, memory_bytes=1 << 30, max_output_bytes=16 << 10)


def _nvcc(source: bytes) -> tuple:
    if shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists():
        pytest.skip("nvcc is not installed")
    return run_collect(["nvcc", "-c", "-o", "k.o", "k.cu"], limits=COMPILE, files={"k.cu": source}, collect=["k.o"])


@pytest.mark.slow
def test_a_template_bomb_is_killed_at_the_compile_cpu_limit() -> None:
    result, files, _ = _nvcc((HOSTILE / "template_bomb.cu").read_bytes())
    assert result.limit_hit in ("cpu", "memory")
    assert files == {}


@pytest.mark.slow
def test_a_macro_bomb_is_killed_at_the_compile_limits() -> None:
    result, files, _ = _nvcc((HOSTILE / "macro_bomb.cu").read_bytes())
    assert result.limit_hit in ("cpu", "memory", "output")
    assert files == {}


@pytest.mark.slow
def test_including_dev_zero_is_killed_at_the_compile_limits() -> None:
    result, files, _ = _nvcc((HOSTILE / "include_dev_zero.cu").read_bytes())
    assert result.limit_hit in ("cpu", "memory")
    assert files == {}


def test_including_a_secret_path_finds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("readonly_root")
    secret = tmp_path / "judge.key"
    secret.write_text("SECRET-SEED")
    monkeypatch.setenv("GRIDSTRIDE_JUDGE_SECRET_FILE", str(secret))
    for path in (secret, REPO / "platform" / "gridstride" / "settings.py"):
        source = (HOSTILE / "include_secret.cu.in").read_text().replace("@SECRET@", str(path))
        result, files, _ = _nvcc(source.encode())
        assert result.exit_code != 0 and result.limit_hit is None
        assert "No such file or directory" in result.stderr
        assert "SECRET-SEED" not in result.stderr and files == {}


def test_a_normal_compile_succeeds_and_its_output_comes_back() -> None:
    result, files, errors = _nvcc(b"__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n")
    assert result.exit_code == 0, result.stderr
    assert files["k.o"][:4] == b"\x7fELF" and errors == {}
