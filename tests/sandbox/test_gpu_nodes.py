"""A job gets its own GPU's device node and the shared ones, never another GPU's (CPU-only:
the node list is computed against a stand-in /dev)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import gpu_check, plan
from sandbox.limits import Limits

TWO_GPU_HOST = ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools")


@pytest.fixture
def fake_dev(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in TWO_GPU_HOST:
        (tmp_path / name).touch()
    monkeypatch.setattr(plan, "DEV_DIR", str(tmp_path))
    return tmp_path


def test_a_job_on_gpu_1_gets_dev_nvidia1_and_not_dev_nvidia0(fake_dev: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu_check, "minor", lambda gpu: gpu)  # a bare host: minor = index
    devices = plan.mount_plan(gpu=1, readable=[], limits=Limits())["gpu_devices"]
    assert devices == ["nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"]


def test_a_job_on_gpu_0_gets_dev_nvidia0_and_not_dev_nvidia1(fake_dev: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu_check, "minor", lambda gpu: gpu)
    devices = plan.mount_plan(gpu=0, readable=[], limits=Limits())["gpu_devices"]
    assert "nvidia0" in devices and "nvidia1" not in devices


def test_in_a_container_given_host_gpu_1_the_node_follows_the_minor_not_the_index(fake_dev: Path) -> None:
    # The container sees one GPU as index 0; its node is still /dev/nvidia1.
    (fake_dev / "nvidia0").unlink()
    assert plan.gpu_device_nodes(0, minor=1)[0] == "nvidia1"


def test_a_missing_gpu_node_refuses_the_job_rather_than_running_without_it(fake_dev: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nvidia2"):
        plan.gpu_device_nodes(2, minor=2)


def test_a_cpu_job_gets_no_gpu_node(fake_dev: Path) -> None:
    assert plan.mount_plan(gpu=None, readable=[], limits=Limits())["gpu_devices"] == []


def test_the_minor_number_is_read_from_nvidia_smi_query_output() -> None:
    out = "GPU 00000000:19:00.0\n    Product Name                          : NVIDIA H200\n    Minor Number                          : 3\n"
    assert gpu_check.minor_in(out) == 3


def test_a_minor_number_of_n_a_is_no_minor_number() -> None:
    assert gpu_check.minor_in("    Minor Number                          : N/A\n") is None
