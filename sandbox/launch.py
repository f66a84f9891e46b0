"""The trusted launcher: builds the sandbox around one process, then execs the target.

Started by the parent (sandbox.job) as `python -I -c <bootstrap> CONFIG_FD STATUS_FD`. It reads a
JSON plan from CONFIG_FD and reports on STATUS_FD (JSON lines), which the target never holds.

  outer launcher (host PID namespace; joins the job's cgroups first, then unshares)
   └─ init: PID 1 of the new PID namespace, still root; builds the mount namespace, then
       └─ target: own session; rlimits; uid/gid/groups dropped; capabilities and the bounding set
          emptied; no_new_privs; seccomp; fds 3.. = pass_fds; execve(argv, env)
     init reaps everything and reports the target's wait status; when init exits the kernel kills
     every process left in the namespace (daemons, double forks).

Every layer the plan asks for must succeed: a failure is reported as an error and nothing runs.
With "best_effort" (used by the capability probe) failures are recorded and the launch goes on.
This module imports only the standard library and sandbox's own helpers, and prints nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import stat
import sys

from sandbox import _libc, seccomp

TYPE_CHECKING = False  # the launcher starts for every job: no typing import at run time
if TYPE_CHECKING:
    from typing import Any

NAMESPACES = {
    "mountns": _libc.CLONE_NEWNS,
    "netns": _libc.CLONE_NEWNET,
    "pidns": _libc.CLONE_NEWPID,
    "ipcns": _libc.CLONE_NEWIPC,
    "utsns": _libc.CLONE_NEWUTS,
    "cgroupns": _libc.CLONE_NEWCGROUP,
}
RLIMITS = {
    "cpu": resource.RLIMIT_CPU,
    "nproc": resource.RLIMIT_NPROC,
    "nofile": resource.RLIMIT_NOFILE,
    "fsize": resource.RLIMIT_FSIZE,
    "core": resource.RLIMIT_CORE,
    "as": resource.RLIMIT_AS,
    "msgqueue": resource.RLIMIT_MSGQUEUE,
}
DEVICES = ("null", "zero", "full", "random", "urandom")
# Files of the job's /proc that describe the host, not the job: boot arguments (on the GPU host
# they named its vsock ports), boot configuration, kernel timers and scheduler state, kernel keys.
PROC_MASKS = ("cmdline", "bootconfig", "timer_list", "sched_debug", "keys", "kcore", "latency_stats")
SAFE_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,128}")


class Plan:
    def __init__(self, raw: dict[str, Any], status_fd: int) -> None:
        self.raw = raw
        self.status_fd = status_fd
        self.best_effort: bool = raw.get("best_effort", False)
        self.layers: dict[str, bool] = {}
        self.reasons: dict[str, str] = {}
        self.blobs = b""
        self.job_uid = -1

    def want(self, layer: str) -> bool:
        return layer in self.raw["layers"]

    def layer(self, name: str, action: Any, *args: Any) -> bool:
        """Run one layer's setup; record it; in strict mode a failure aborts the launch."""
        try:
            action(*args)
        except Exception as e:
            self.layers[name] = False
            self.reasons[name] = f"{type(e).__name__}: {e}"
            if not self.best_effort:
                raise LaunchError(f"sandbox layer {name} failed: {e}") from e
            return False
        self.layers[name] = True
        return True

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode()
        with contextlib.suppress(OSError):
            os.write(self.status_fd, data)


class LaunchError(Exception):
    pass


# --- outer launcher -------------------------------------------------------------------------


def join_cgroups(procs_files: list[str]) -> None:
    for path in procs_files:
        with open(path, "w") as f:
            f.write("0")


def unshare_namespaces(plan: Plan) -> bool:
    """Returns whether a new PID namespace was made (then the next fork is its PID 1)."""
    wanted = [n for n in NAMESPACES if plan.want(n)]
    if not wanted:
        return False
    root = os.geteuid() == 0
    flags = 0
    for name in wanted:
        flags |= NAMESPACES[name]
    try:
        # Without root, a user namespace is what lets us make the others (mapped to our own uid).
        _libc.unshare(flags if root else flags | _libc.CLONE_NEWUSER)
        if not root:
            _map_self_to_root()
        for name in wanted:
            plan.layers[name] = True
    except OSError as e:
        if not root:
            for name in wanted:
                plan.layer(name, _raise, e)
        else:  # try one by one so the report says which namespace this host refuses
            for name in wanted:
                plan.layer(name, _libc.unshare, NAMESPACES[name])
    return plan.layers.get("pidns", False)


def _raise(error: Exception) -> None:
    raise error


def _map_self_to_root() -> None:
    uid, gid = os.getuid(), os.getgid()
    with contextlib.suppress(OSError), open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"0 {uid} 1")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"0 {gid} 1")


# --- init: the mount namespace ----------------------------------------------------------------


def _mkdirs(path: str) -> None:
    os.makedirs(path, mode=0o755, exist_ok=True)


def _bind(src: str, dst: str, *, writable: bool = False, device: bool = False) -> None:
    st = os.stat(src)
    if stat.S_ISDIR(st.st_mode):
        _mkdirs(dst)
    else:
        _mkdirs(os.path.dirname(dst))
        if not os.path.exists(dst):
            os.close(os.open(dst, os.O_CREAT | os.O_WRONLY, 0o644))
    _libc.mount(src, dst, None, _libc.MS_BIND)
    flags = _libc.MS_REMOUNT | _libc.MS_BIND | _libc.MS_NOSUID
    flags |= 0 if writable else _libc.MS_RDONLY
    flags |= _libc.MS_NOEXEC if device else 0
    if not device and not writable:
        flags |= _libc.MS_NODEV
    _libc.mount(None, dst, None, flags)


def _write_file(path: str, text: str) -> None:
    _mkdirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(text)


def build_root(plan: Plan) -> None:
    """A new root on a tmpfs with only what the plan lists, then pivot into it (read-only)."""
    mount = plan.raw["mount"]
    new = mount["staging"]
    _libc.mount(None, "/", None, _libc.MS_REC | _libc.MS_PRIVATE)
    _libc.mount("tmpfs", new, "tmpfs", _libc.MS_NOSUID | _libc.MS_NODEV, "mode=0755,size=16m")

    # /tmp: private, size-capped, the only writable place (with /dev/shm). Mounted
    # before the binds so that readable paths under /tmp stay visible inside it.
    _mkdirs(new + "/tmp")
    tmp_opts = f"mode=1777,size={mount['tmp_bytes']},nr_inodes=65536"
    _libc.mount("tmpfs", new + "/tmp", "tmpfs", _libc.MS_NOSUID | _libc.MS_NODEV, tmp_opts)
    plan.layers["private_tmp"] = True

    for link, target in mount["symlinks"]:
        _mkdirs(os.path.dirname(new + link))
        os.symlink(target, new + link)
    for src in mount["binds"]:
        _bind(src, new + src)
    for path, text in mount["files"].items():
        _write_file(new + path, text)
    for path in mount["masks"]:
        # A secret that happens to live under a bound tree: cover it with an empty read-only file.
        if os.path.lexists(new + path):
            if os.path.isdir(new + path):
                _libc.mount("tmpfs", new + path, "tmpfs", _libc.MS_RDONLY | _libc.MS_NOSUID | _libc.MS_NODEV, "size=4k")
            else:
                _libc.mount("/dev/null", new + path, None, _libc.MS_BIND)

    # /dev: a few harmless nodes plus this job's GPU only.
    dev = new + "/dev"
    _mkdirs(dev)
    _libc.mount("tmpfs", dev, "tmpfs", _libc.MS_NOSUID | _libc.MS_NOEXEC, "mode=0755,size=64k")
    for name in DEVICES + tuple(mount["gpu_devices"]):
        _bind("/dev/" + name, dev + "/" + name, device=True)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, f"{dev}/{name}")
    _mkdirs(dev + "/shm")
    shm_opts = f"mode=1777,size={mount['shm_bytes']},nr_inodes=65536"
    _libc.mount("tmpfs", dev + "/shm", "tmpfs", _libc.MS_NOSUID | _libc.MS_NODEV, shm_opts)
    _libc.mount(None, dev, None, _libc.MS_REMOUNT | _libc.MS_RDONLY | _libc.MS_NOSUID | _libc.MS_NOEXEC)
    plan.layers["minimal_dev"] = True

    # /proc for the new PID namespace (read-write: CUDA fails on a read-only /proc). Other
    # users' processes (init, which is root) are invisible.
    _mkdirs(new + "/proc")
    proc_flags = _libc.MS_NOSUID | _libc.MS_NODEV | _libc.MS_NOEXEC
    try:
        _libc.mount("proc", new + "/proc", "proc", proc_flags, "hidepid=invisible")
    except OSError:
        _libc.mount("proc", new + "/proc", "proc", proc_flags, "hidepid=2")
    for name in PROC_MASKS:
        # The host's boot arguments and kernel internals: each shows as an empty file.
        if os.path.isfile(f"{new}/proc/{name}"):
            _libc.mount("/dev/null", f"{new}/proc/{name}", None, _libc.MS_BIND)
    plan.layers["fresh_proc"] = True

    os.chdir(new)
    try:
        _libc.pivot_root(".", ".")
        _libc.umount2(".", _libc.MNT_DETACH)
    except OSError:
        # The old root cannot be pivoted (e.g. an initramfs root): move and chroot instead.
        _libc.mount(new, "/", None, _libc.MS_MOVE)
        os.chroot(".")
    os.chdir("/")
    _libc.mount(None, "/", None, _libc.MS_REMOUNT | _libc.MS_RDONLY | _libc.MS_NOSUID | _libc.MS_NODEV)
    plan.layers["readonly_root"] = True


# --- target: privileges, limits, seccomp, exec -----------------------------------------------


def set_rlimits(limits: dict[str, list[int]]) -> None:
    for name, (soft, hard) in limits.items():
        resource.setrlimit(RLIMITS[name], (soft, hard))


def drop_privileges(uid: int, gid: int) -> None:
    if os.geteuid() == 0:
        for cap in range(_libc.last_capability() + 1):
            with contextlib.suppress(OSError):
                _libc.prctl(_libc.PR_CAPBSET_DROP, cap)
        with contextlib.suppress(OSError):
            _libc.prctl(_libc.PR_CAP_AMBIENT, _libc.PR_CAP_AMBIENT_CLEAR_ALL)
    if os.getuid() == 0 and uid != 0:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        if 0 in os.getresuid() or 0 in os.getresgid():
            raise OSError("uid or gid 0 still held after the drop")
    _libc.clear_all_capabilities()


def check_no_caps() -> None:
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("CapPrm", "CapEff", "CapBnd", "CapAmb", "CapInh") and int(value, 16) != 0:
                if key == "CapBnd" and os.getuid() != 0:
                    continue  # only root could have dropped it; a non-root launch reports it
                raise OSError(f"{key} is {value.strip()}")


def no_new_privs() -> None:
    _libc.prctl(_libc.PR_SET_NO_NEW_PRIVS, 1)


def arrange_fds(passed: list[int], keep: int) -> int:
    """The passed fds become 3, 4, ... in order; everything else but `keep` is closed.
    Returns keep's new number."""
    import fcntl

    lowest = 3 + len(passed)
    # Park every fd at or above `lowest` first, so filling 3.. cannot clobber one not yet moved.
    keep_moved = fcntl.fcntl(keep, fcntl.F_DUPFD_CLOEXEC, lowest)
    staged = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, lowest) for fd in passed]
    for i, fd in enumerate(staged):
        os.dup2(fd, 3 + i, inheritable=True)
    os.closerange(lowest, keep_moved)
    os.closerange(keep_moved + 1, 1 << 16)
    return keep_moved


def run_target(plan: Plan, report_w: int) -> None:
    """In the forked target child: never returns."""
    raw = plan.raw
    try:
        os.setsid()
        # Python ignores these two and an ignored signal survives exec: give the job the defaults.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        report_w = arrange_fds(raw["pass_fds"], keep=report_w)
        set_rlimits(raw["rlimits"])
        os.chdir(raw["cwd"])
        if plan.want("uid_drop") or plan.want("caps_dropped"):
            drop_privileges(raw["uid"], raw["gid"])
            if not plan.best_effort:
                check_no_caps()
        if plan.want("no_new_privs"):
            no_new_privs()
        if plan.want("seccomp"):
            seccomp.install()
        env, argv = raw["env"], raw["argv"]
    except BaseException as e:
        _report_exec_failure(report_w, f"setup: {type(e).__name__}: {e}")
        os._exit(127)
    try:
        os.execvpe(argv[0], argv, env)
    except BaseException as e:
        _report_exec_failure(report_w, f"exec {argv[0]}: {e}")
        os._exit(127)


def _report_exec_failure(fd: int, text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, text.encode()[:4000])


# --- main -------------------------------------------------------------------------------------


def _wait_status(status: int) -> dict[str, int | None]:
    if os.WIFSIGNALED(status):
        return {"code": None, "signal": os.WTERMSIG(status)}
    return {"code": os.WEXITSTATUS(status), "signal": None}


def init_main(plan: Plan, outer_pid: int, pid_namespace: bool) -> None:
    """PID 1 of the job's namespace (or a subreaper without one). Never returns."""
    try:
        _libc.prctl(_libc.PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != (0 if pid_namespace else outer_pid):  # the outer launcher already died
            os._exit(1)
        if not pid_namespace:
            _libc.prctl(_libc.PR_SET_CHILD_SUBREAPER, 1)
        if plan.want("utsns") and plan.layers.get("utsns"):
            _libc.sethostname("sandbox")
        if plan.want("readonly_root") and plan.layers.get("mountns"):
            plan.layer("readonly_root", build_root, plan)
        elif plan.want("readonly_root"):
            plan.layers["readonly_root"] = False
            plan.reasons["readonly_root"] = "no mount namespace"
        work, work_fd, scratch = prepare_work_dir(plan)
        # The target reports a failed exec here; a successful exec closes it (O_CLOEXEC).
        report_r, report_w = os.pipe2(os.O_CLOEXEC)
        plan.send({"layers": plan.layers, "reasons": plan.reasons})
        target = os.fork()
        if target == 0:
            os.close(report_r)
            run_target(plan, report_w)
        os.close(report_w)
        failure = os.read(report_r, 4096)
        os.close(report_r)
        if failure:
            plan.send({"error": failure.decode(errors="replace")})
        elif pid_namespace:
            plan.send({"started": True})
        else:  # the parent needs the target's real pid to kill its session without a namespace
            plan.send({"started": True, "target_pid": target})
        # Close what init holds of the job's channels: the target owns them now.
        collect_fd = plan.raw.get("collect_fd")
        _close_all_except({plan.status_fd, work_fd, collect_fd if collect_fd is not None else -1})
        result: dict[str, int | None] = {"code": 127, "signal": None}
        while True:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            if pid == target:
                result = _wait_status(status)
                break
        if not pid_namespace:
            _kill_descendants()
        if collect_fd is not None:
            collect_outputs(plan, work_fd, collect_fd)
        if scratch:
            import shutil

            shutil.rmtree(work, ignore_errors=True)  # fd-based, never follows the job's symlinks
        plan.send({"exit": result})
    except BaseException as e:
        plan.send({"error": f"init: {type(e).__name__}: {e}"})
        os._exit(125)
    os._exit(0)


def _close_all_except(keep: set[int]) -> None:
    last = 0
    for fd in sorted(k for k in keep if k >= 0):
        os.closerange(last, fd)
        last = fd + 1
    os.closerange(last, 1 << 16)


def _valid_name(name: str) -> bool:
    return bool(SAFE_NAME.fullmatch(name)) and name not in (".", "..")


def prepare_work_dir(plan: Plan) -> tuple[str, int, bool]:
    """Where `files` land and `collect` reads: the private /tmp, or without a mount namespace a
    fresh directory. Opened once, now, before any job code runs: later reads go through this fd
    and never through a path the job could have replaced."""
    raw = plan.raw
    scratch = not plan.layers.get("readonly_root")
    if scratch:
        import tempfile

        work = tempfile.mkdtemp(prefix="gridstride-job-")
    else:
        work = "/tmp"
    job_uid, job_gid = (raw["uid"], raw["gid"]) if plan.layers.get("uid_drop") else (os.getuid(), os.getgid())
    if scratch:
        os.chown(work, job_uid, job_gid)
    if raw.get("cwd") is None:
        raw["cwd"] = work
    work_fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    offset = 0
    for name, size in raw.get("files", []):
        if not _valid_name(name):
            raise LaunchError(f"bad file name {name!r}")
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=work_fd)
        try:
            view = memoryview(plan.blobs)[offset : offset + size]
            while view:
                view = view[os.write(fd, view) :]
            os.fchown(fd, job_uid, job_gid)
        finally:
            os.close(fd)
        offset += size
    plan.job_uid = job_uid
    return work, work_fd, scratch


def collect_outputs(plan: Plan, work_fd: int, out_fd: int) -> None:
    """Send the requested files back as frames: a JSON header line, then `size` raw bytes.

    Only regular files with one link, owned by the job, named directly in the work directory and
    opened without following symlinks (FIFOs, devices, links to anything else are refused)."""
    budget = int(plan.raw.get("collect_max_bytes", 1 << 30))
    for name in plan.raw.get("collect", []):
        header: dict[str, Any] = {"name": name}
        data = b""
        try:
            if not _valid_name(name):
                raise ValueError("not a plain file name")
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=work_fd)
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise ValueError("not a regular file")
                if st.st_nlink != 1 or st.st_uid != plan.job_uid:
                    raise ValueError("a link to a file the job did not create")
                if st.st_size > budget:
                    raise ValueError(f"larger than the {budget}-byte collect limit")
                chunks = []
                left = budget + 1
                while left > 0:
                    chunk = os.read(fd, min(left, 1 << 20))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    left -= len(chunk)
                data = b"".join(chunks)
                if len(data) > budget:
                    raise ValueError(f"larger than the {budget}-byte collect limit")
            finally:
                os.close(fd)
            budget -= len(data)
            header["size"] = len(data)
        except (OSError, ValueError) as e:
            header["missing"] = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            data = b""
        with contextlib.suppress(OSError):
            _write_all(out_fd, (json.dumps(header) + "\n").encode() + data)
    os.close(out_fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _kill_descendants() -> None:
    """Without a PID namespace: kill whatever was re-parented to us (we are a subreaper)."""
    for _ in range(50):
        try:
            with open(f"/proc/self/task/{os.getpid()}/children") as f:
                children = [int(p) for p in f.read().split()]
        except OSError:
            return
        if not children:
            return
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass


def main(argv: list[str] | None = None) -> None:
    args = argv if argv is not None else sys.argv[1:]
    config_fd, status_fd = int(args[0]), int(args[1])
    with os.fdopen(config_fd, "rb") as f:
        header, _, blobs = f.read().partition(b"\n")
    raw = json.loads(header)
    plan = Plan(raw, status_fd)
    plan.blobs = blobs
    try:
        if raw["cgroup_procs"]:
            plan.layer("cgroup", join_cgroups, raw["cgroup_procs"])
        pid_namespace = unshare_namespaces(plan)
        if plan.want("no_new_privs"):
            plan.layers["no_new_privs"] = True
        if plan.want("seccomp"):
            plan.layers["seccomp"] = seccomp.supported()
            if not seccomp.supported():
                plan.reasons["seccomp"] = f"no syscall table for {_libc.MACHINE}"
                if not plan.best_effort:
                    raise LaunchError(plan.reasons["seccomp"])
        if plan.want("uid_drop"):
            plan.layers["uid_drop"] = os.geteuid() == 0
            if os.geteuid() != 0:
                plan.reasons["uid_drop"] = "launcher is not root: the job keeps the caller's uid"
        if plan.want("caps_dropped"):
            plan.layers["caps_dropped"] = True
        plan.layers["rlimits"] = True
    except LaunchError as e:
        plan.send({"error": str(e)})
        os._exit(125)
    outer = os.getpid()
    child = os.fork()
    if child == 0:
        init_main(plan, outer, pid_namespace)
    # The outer launcher holds nothing the job needs; it mirrors init's fate, and kills init (so
    # the whole PID namespace) if the parent worker dies: its end of the lifeline then closes.
    lifeline = raw.get("lifeline_fd")
    _close_all_except({lifeline if lifeline is not None else -1})
    status = _wait_or_orphaned(child, lifeline)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def _wait_or_orphaned(child: int, lifeline: int | None) -> int:
    import select

    if lifeline is None:
        return os.waitpid(child, 0)[1]
    pidfd = os.pidfd_open(child)
    while True:
        ready, _, _ = select.select([pidfd, lifeline], [], [])
        if lifeline in ready and not os.read(lifeline, 1):
            os.kill(child, signal.SIGKILL)  # the worker is gone: nobody would enforce the limits
            return os.waitpid(child, 0)[1]
        if pidfd in ready:
            return os.waitpid(child, 0)[1]


if __name__ == "__main__":
    main()
