"""problem.toml's `gpus`: how many GPUs of one host a judging holds (default 1), validated on load."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from judge import cli
from judge import spec as specmod
from judge.harness.parent.admission import Refusal, admit
from judge.harness.parent.config import JudgeConfig
from judge.protocol import JudgeJob

ADD = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"


def copy_with(tmp_path: Path, line: str | None) -> Path:
    """vector_add under tmp_path, with `line` added to its problem.toml's top-level keys."""
    source = specmod.PROBLEMS_DIR / "vector_add"
    target = tmp_path / "vector_add"
    for path in source.rglob("*"):
        if path.is_file():
            (target / path.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
            (target / path.relative_to(source)).write_bytes(path.read_bytes())
    if line is not None:
        toml = (target / "problem.toml").read_text()
        at = toml.index("languages =")
        (target / "problem.toml").write_text(toml[:at] + line + "\n" + toml[at:])
    return target


def test_a_problem_that_names_no_gpu_count_needs_one_gpu(tmp_path: Path) -> None:
    assert specmod.load_problem(copy_with(tmp_path, None)).gpus == 1


def test_a_problem_can_need_several_gpus_of_one_host(tmp_path: Path) -> None:
    assert specmod.load_problem(copy_with(tmp_path, "gpus = 4")).gpus == 4


def test_needing_several_gpus_changes_the_ranking_but_saying_one_keeps_it(tmp_path: Path) -> None:
    plain = specmod.load_problem(copy_with(tmp_path / "a", None))
    one = specmod.load_problem(copy_with(tmp_path / "b", "gpus = 1"))
    two = specmod.load_problem(copy_with(tmp_path / "c", "gpus = 2"))
    assert one.ranking_hash == plain.ranking_hash
    assert two.ranking_hash != plain.ranking_hash


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("gpus = 0", "gpus must be a whole number from 1 to 8, not 0"),
        ("gpus = 9", "from 1 to 8, not 9"),
        ("gpus = 2.0", "'gpus' must be int"),
        ("gpus = true", "'gpus' must be int"),
        ('gpus = "2"', "'gpus' must be int"),
    ],
)
def test_a_gpu_count_out_of_range_or_not_a_whole_number_is_refused_at_its_line(
    tmp_path: Path, line: str, says: str
) -> None:
    target = copy_with(tmp_path, line)
    with pytest.raises(specmod.ProblemError, match=says) as caught:
        specmod.load_problem(target)
    expected = target.joinpath("problem.toml").read_text().splitlines().index(line) + 1
    assert caught.value.line == expected


def test_validate_reports_a_bad_gpu_count_as_an_error_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_with(tmp_path, "gpus = 0")
    assert cli.main(["validate", "--root", str(tmp_path)]) == cli.EXIT_FAILED
    out = capsys.readouterr().out
    assert "problem.toml:" in out and "gpus must be a whole number from 1 to 8" in out


def test_every_problem_in_the_catalog_needs_one_gpu_until_the_judge_drives_several() -> None:
    specs, errors = specmod.load_all()
    assert not errors
    assert {s.slug for s in specs if s.gpus != 1} == set()


def test_the_judge_refuses_a_problem_needing_more_gpus_than_a_child_holds_as_its_own_fault(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    two = dataclasses.replace(specmod.load("vector_add"), gpus=2)
    monkeypatch.setattr(specmod, "load", lambda slug: two)
    job = JudgeJob(submission_id="t", attempt=1, problem="vector_add", language="pytorch", source=ADD, mode="test")
    refused = admit(job, JudgeConfig(device="cpu"))
    assert isinstance(refused, Refusal)
    assert refused.verdict == "internal_error"
    assert refused.message == "vector_add needs 2 GPUs at once; this judge runs each submission on one GPU"


def test_a_one_gpu_problem_is_admitted() -> None:
    job = JudgeJob(submission_id="t", attempt=1, problem="vector_add", language="pytorch", source=ADD, mode="test")
    assert isinstance(admit(job, JudgeConfig(device="cpu")), specmod.ProblemSpec)
