"""The judge fails closed (docs/security.md): a host that cannot give every sandbox layer judges
nothing, and says which layer is missing; only the development switch GRIDSTRIDE_JUDGE_SANDBOX=off
runs submissions without isolation, and every report then says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sandbox
from judge.harness.parent import launch
from judge.harness.parent.config import JudgeConfig
from judge.harness.parent.launch import UNSANDBOXED, SandboxSetting, SandboxUnavailable
from sandbox.layers import ALL_LAYERS, Capabilities
from tests.judge.judging_helpers import judge

ROOT = Path(__file__).resolve().parents[2]
ADD = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"


@pytest.fixture
def fresh_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """The backend is decided again in this test, and restored afterwards."""
    monkeypatch.setattr(launch, "_setting", None)
    monkeypatch.setattr(launch, "_backend", None)
    monkeypatch.setattr(launch, "_refusal", None)


def without(monkeypatch: pytest.MonkeyPatch, layer: str) -> None:
    """A host whose sandbox probe finds every layer but one."""
    caps = Capabilities({name: name != layer for name in ALL_LAYERS}, {layer: "not available on this host"})
    monkeypatch.setattr(sandbox, "capabilities", lambda refresh=False: caps)


def test_a_missing_layer_is_a_refusal_naming_it(monkeypatch: pytest.MonkeyPatch, fresh_backend: None) -> None:
    without(monkeypatch, "netns")
    launch.configure(SandboxSetting())
    with pytest.raises(SandboxUnavailable, match=r"netns \(not available on this host\)") as refused:
        launch.backend()
    assert "GRIDSTRIDE_JUDGE_SANDBOX=off" in str(refused.value)
    assert launch.refusal(SandboxSetting()) == str(refused.value)


def test_a_sandbox_that_does_not_start_is_a_refusal(monkeypatch: pytest.MonkeyPatch, fresh_backend: None) -> None:
    def broken(refresh: bool = False) -> Capabilities:
        raise sandbox.SandboxError("unshare: operation not permitted")

    monkeypatch.setattr(sandbox, "capabilities", broken)
    refusal = launch.refusal(SandboxSetting())
    assert refusal is not None and "unshare: operation not permitted" in refusal


def test_a_judging_without_a_required_layer_runs_nothing_and_names_the_layer(
    monkeypatch: pytest.MonkeyPatch, fresh_backend: None
) -> None:
    without(monkeypatch, "seccomp")

    def no_child(*args: object, **kwargs: object) -> None:
        raise AssertionError("a child was started without the sandbox")

    monkeypatch.setattr(launch, "start_child", no_child)
    report = judge(ADD, config=JudgeConfig(device="cpu", warm_pool=False))
    assert report.verdict == "internal_error" and "seccomp" in report.message, report.message
    assert not report.cases


def test_only_the_layers_an_operator_names_are_required_when_they_name_them(
    monkeypatch: pytest.MonkeyPatch, fresh_backend: None
) -> None:
    without(monkeypatch, "cgroup_cpu")
    named = SandboxSetting.from_env({"GRIDSTRIDE_SANDBOX_REQUIRE": "netns,pidns,seccomp"})
    assert named.required == ("netns", "pidns", "seccomp")
    assert launch.refusal(named) is None
    assert launch.refusal(SandboxSetting.from_env({})) is not None  # the default: every layer
    assert "unknown layers: netz" in (launch.refusal(SandboxSetting(required=("netz",))) or "")


def test_the_setting_is_read_from_the_environment_and_a_typo_is_an_error() -> None:
    assert SandboxSetting.from_env({}) == SandboxSetting(enabled=True, required=None)
    assert SandboxSetting.from_env({"GRIDSTRIDE_SANDBOX_REQUIRE": ""}).required is None
    assert not SandboxSetting.from_env({"GRIDSTRIDE_JUDGE_SANDBOX": "off"}).enabled
    with pytest.raises(ValueError, match="GRIDSTRIDE_JUDGE_SANDBOX"):
        SandboxSetting.from_env({"GRIDSTRIDE_JUDGE_SANDBOX": "of"})
    assert JudgeConfig.from_env(device="cpu").sandbox == SandboxSetting.from_env()


def test_the_development_switch_judges_unsandboxed_and_the_report_says_so(
    monkeypatch: pytest.MonkeyPatch, fresh_backend: None
) -> None:
    without(monkeypatch, "netns")
    config = JudgeConfig(device="cpu", warm_pool=False, limit_cap_seconds=60, sandbox=SandboxSetting(enabled=False))
    report = judge(ADD, config=config)
    assert report.verdict == "accepted", report.message
    assert report.system["sandbox"] == UNSANDBOXED == "unsandboxed (development switch)"


def run_cli(tmp_path: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    inherited = {
        k: v for k, v in os.environ.items() if not k.startswith(("GRIDSTRIDE_JUDGE_SANDBOX", "GRIDSTRIDE_SANDBOX"))
    }
    full = {**inherited, "GRIDSTRIDE_VAR_DIR": str(tmp_path / "var"), "GRIDSTRIDE_JUDGE_PREPARE": "0", **env}
    return subprocess.run(
        [sys.executable, "-m", "judge", *argv], cwd=ROOT, env=full, capture_output=True, text=True, timeout=240
    )


def test_the_cli_refuses_to_judge_on_a_host_missing_a_layer(tmp_path: Path) -> None:
    solution = tmp_path / "solution.py"
    solution.write_text(ADD)
    # The real probe, with one layer really switched off.
    out = run_cli(
        tmp_path, "run", "--cpu", "--problem", "vector_add", str(solution), GRIDSTRIDE_SANDBOX_DISABLE="netns"
    )
    assert out.returncode == 3, out.stdout + out.stderr
    assert "netns (disabled by GRIDSTRIDE_SANDBOX_DISABLE)" in out.stderr and "vector_add" not in out.stdout


def test_the_cli_judges_unsandboxed_only_with_the_development_switch(tmp_path: Path) -> None:
    solution = tmp_path / "solution.py"
    solution.write_text(ADD)
    out = run_cli(
        tmp_path,
        "run",
        "--cpu",
        "--json",
        "--problem",
        "vector_add",
        str(solution),
        GRIDSTRIDE_SANDBOX_DISABLE="netns",
        GRIDSTRIDE_JUDGE_SANDBOX="off",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "accepted" and report["system"]["sandbox"] == UNSANDBOXED


def test_a_worker_refuses_to_start_on_a_host_missing_a_layer(tmp_path: Path) -> None:
    out = run_cli(tmp_path, "worker", "--gpu-model", "cpu", GRIDSTRIDE_SANDBOX_DISABLE="cgroup")
    assert out.returncode != 0
    assert "cgroup_memory (disabled by GRIDSTRIDE_SANDBOX_DISABLE)" in out.stderr, out.stderr
