"""Host detection: the queue suffix a worker serves."""

from __future__ import annotations

import pytest

from judge.host import detect, gpu_model_of


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("NVIDIA H200", "h200"),
        ("NVIDIA H100 80GB HBM3", "h100"),
        ("NVIDIA GH200 480GB", "gh200"),
        ("NVIDIA A100-SXM4-80GB", "a100"),
        ("NVIDIA A10G", "a10g"),
        ("NVIDIA L40S", "l40s"),
        ("NVIDIA L4", "l4"),
        ("Tesla T4", "t4"),
        ("NVIDIA GeForce RTX 4090", "rtx4090"),
        ("NVIDIA RTX A6000", "rtxa6000"),
    ],
)
def test_gpu_names_map_to_queue_suffixes(name: str, model: str) -> None:
    assert gpu_model_of(name) == model


def test_a_host_without_cuda_serves_the_cpu_queue(monkeypatch) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    info = detect()
    assert info.gpu_model == "cpu" and info.device == "cpu" and "pytorch" in info.capabilities
