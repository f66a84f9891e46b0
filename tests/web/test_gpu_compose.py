"""`python -m judge compose-gpus`: one judge worker per GPU of the host, from nvidia-smi's list.

In the web suite because it reads the generated YAML back with PyYAML, which the judge's
environment does not have (the generator itself is stdlib only, to run on a bare GPU host)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from judge import cli, gpu_compose
from judge.protocol import judge_queue

FOUR_H200 = (
    "0, NVIDIA H200, GPU-00000000-aaaa-0000-0000-000000000000\n"
    "1, NVIDIA H200, GPU-11111111-bbbb-0000-0000-000000000000\n"
    "2, NVIDIA H200, GPU-22222222-cccc-0000-0000-000000000000\n"
    "3, NVIDIA H200, GPU-33333333-dddd-0000-0000-000000000000\n"
)


def compose(layout: list[int] | None = None, memory_gib: int | None = None, remote: bool = False) -> dict[str, Any]:
    """The generated file for FOUR_H200 on a 64-CPU host, read back as compose reads it."""
    workers = gpu_compose.plan_workers(gpu_compose.parse_gpus(FOUR_H200), layout, cpus=64)
    return dict(yaml.safe_load(gpu_compose.render(workers, memory_gib=memory_gib, remote=remote)))


def test_a_four_gpu_host_gets_four_workers_each_holding_only_its_own_gpu() -> None:
    services = compose()["services"]
    assert list(services) == ["judge-gpu0", "judge-gpu1", "judge-gpu2", "judge-gpu3"]
    gpu1 = services["judge-gpu1"]
    [device] = gpu1["deploy"]["resources"]["reservations"]["devices"]
    assert device["device_ids"] == ["GPU-11111111-bbbb-0000-0000-000000000000"]
    assert gpu1["environment"]["NVIDIA_VISIBLE_DEVICES"] == "GPU-11111111-bbbb-0000-0000-000000000000"
    # Inside its container the one GPU is device 0, whatever its host index.
    assert gpu1["environment"]["CUDA_VISIBLE_DEVICES"] == "0"
    assert gpu1["command"][-4:] == ["--name", "gpu1", "--gpus", "1"]


def test_each_worker_gets_its_own_consecutive_share_of_the_cpus() -> None:
    services = compose()["services"]
    assert [s["cpuset"] for s in services.values()] == ["0-15", "16-31", "32-47", "48-63"]


def test_a_layout_groups_gpus_into_a_worker_that_serves_the_k_gpu_queue() -> None:
    services = compose([1, 1, 2])["services"]
    pair = services["judge-gpu2-3"]
    assert pair["command"][-2:] == ["--gpus", "2"]
    assert pair["environment"]["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert pair["cpuset"] == "32-63"
    workers = gpu_compose.plan_workers(gpu_compose.parse_gpus(FOUR_H200), [1, 1, 2], cpus=64)
    assert [w.queue for w in workers] == ["judge.h200", "judge.h200", "judge.h200.x2"]


def test_a_layout_that_does_not_use_every_gpu_once_is_refused() -> None:
    with pytest.raises(ValueError, match="holds 3 GPUs; this host has 4"):
        gpu_compose.plan_workers(gpu_compose.parse_gpus(FOUR_H200), [1, 2])


def test_one_worker_never_mixes_gpu_models() -> None:
    mixed = gpu_compose.parse_gpus("0, NVIDIA H200, GPU-a\n1, NVIDIA H100 80GB HBM3, GPU-b\n")
    with pytest.raises(ValueError, match="several models"):
        gpu_compose.plan_workers(mixed, [2])
    assert [w.queue for w in gpu_compose.plan_workers(mixed)] == ["judge.h200", "judge.h100"]


def test_a_judge_only_host_reads_the_broker_from_its_env_and_waits_on_no_local_redis() -> None:
    local = compose()["services"]["judge-gpu0"]
    remote = compose(remote=True)["services"]["judge-gpu0"]
    assert local["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert "depends_on" not in remote
    assert remote["environment"]["CELERY_BROKER_URL"].startswith("${CELERY_BROKER_URL:?")


def test_a_memory_limit_is_set_per_worker_only_when_asked() -> None:
    assert "mem_limit" not in compose()["services"]["judge-gpu0"]
    assert compose(memory_gib=96)["services"]["judge-gpu0"]["mem_limit"] == "96g"


def test_a_garbled_nvidia_smi_line_is_refused_with_its_line_number() -> None:
    with pytest.raises(ValueError, match="line 2"):
        gpu_compose.parse_gpus("0, NVIDIA H200, GPU-a\nNo devices were found\n")


def test_the_cli_writes_the_file_from_a_saved_nvidia_smi_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "smi.csv"
    saved.write_text(FOUR_H200)
    assert cli.main(["compose-gpus", "--nvidia-smi-output", str(saved), "--cpus", "8"]) == cli.EXIT_OK
    assert len(yaml.safe_load(capsys.readouterr().out)["services"]) == 4


def test_queues_name_the_model_and_how_many_gpus_a_worker_holds() -> None:
    assert judge_queue("h200") == "judge.h200"
    assert judge_queue("h200", 8) == "judge.h200.x8"
    with pytest.raises(ValueError):
        judge_queue("h200", 0)
