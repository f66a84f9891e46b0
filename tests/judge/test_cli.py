"""`python -m judge`: exit codes, the readable table and JSON, validate's file:line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge import spec as specmod
from judge.cli import main

ROOT = Path(__file__).resolve().parents[2]
ADD = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"


@pytest.fixture
def solution(tmp_path: Path):
    def write(text: str, name: str = "solution.py") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


def test_run_exits_zero_only_when_accepted_through_the_real_entry_point(solution) -> None:
    good = subprocess.run(
        [sys.executable, "-m", "judge", "run", "--problem", "vector_add", "--language", "pytorch", str(solution(ADD))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "vector_add · pytorch · test: ACCEPTED" in good.stdout and "not-a-tile-multiple" in good.stdout


def test_run_exits_one_on_a_wrong_answer_and_lists_the_mismatches(solution, capsys) -> None:
    code = main(["run", "--problem", "vector_add", str(solution("def solve(a, b, c, n):\n    c.copy_(a * b)\n"))])
    out = capsys.readouterr().out
    assert code == 1
    assert "WRONG ANSWER" in out and "FAIL" in out and "at [0]: expected" in out


def test_run_json_prints_the_versioned_report(solution, capsys) -> None:
    code = main(["run", "--problem", "vector_add", "--json", str(solution(ADD))])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["verdict"] == "accepted" and report["version"] == 1
    assert report["language"] == "pytorch" and report["system"]["device"] in ("cpu", "cuda")


def test_run_guesses_cuda_from_the_file_name_and_triton_from_its_imports(solution, capsys) -> None:
    from judge.cli import guess_language

    assert guess_language(Path("x.cu"), "") == "cuda"
    assert guess_language(Path("x.py"), "import triton\n") == "triton"
    assert guess_language(Path("x.py"), "import cupy as cp\n") == "cupy"
    assert guess_language(Path("x.py"), "import torch\n") == "pytorch"


def test_run_with_a_missing_file_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["run", "--problem", "vector_add", str(tmp_path / "missing.py")]) == 2


def test_validate_passes_on_the_problems_in_the_repository(capsys) -> None:
    code = main(["validate"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "ok    vector_add" in out


def copy_problem(tmp_path: Path, slug: str = "vector_add") -> Path:
    root = tmp_path / "problems"
    shutil.copytree(specmod.PROBLEMS_DIR / slug, root / slug)
    return root


def test_validate_reports_a_broken_problem_toml_with_file_and_line(tmp_path: Path, capsys) -> None:
    root = copy_problem(tmp_path)
    toml = root / "vector_add" / "problem.toml"
    lines = toml.read_text().splitlines()
    number = next(i for i, line in enumerate(lines, 1) if line.startswith("difficulty"))
    lines[number - 1] = 'difficulty = "impossible"'
    toml.write_text("\n".join(lines) + "\n")
    code = main(["validate", "--root", str(root)])
    out = capsys.readouterr().out
    assert code == 1
    assert f"{toml}:{number}: difficulty must be one of" in out


BROKEN_REFERENCE = """import torch


def generate_inputs(seed, device="cpu", *, n):
    gen = torch.Generator(device=device).manual_seed(seed)
    return {"a": torch.randn(n, generator=gen, device=device), "b": torch.randn(n, generator=gen, device=device)}


def reference(a, b, n):
    return {"c": (a.double() + b.double())[:-1]}
"""


def write_reference(tmp_path: Path, text: str) -> tuple[Path, Path]:
    refs = tmp_path / "refs"
    (refs / "vector_add").mkdir(parents=True)
    ref = refs / "vector_add" / "reference.py"
    ref.write_text(text)
    return refs, ref


def test_validate_reports_a_reference_with_the_wrong_output_shape_with_file_and_line(tmp_path: Path, capsys) -> None:
    root = copy_problem(tmp_path)
    refs, ref = write_reference(tmp_path, BROKEN_REFERENCE)
    code = main(["validate", "--root", str(root), "--references", str(refs)])
    out = capsys.readouterr().out
    assert code == 1
    assert f"{ref}:9: reference() gives c of shape (0,), the interface says (1,)" in out


def test_validate_reports_a_reference_that_raises_at_the_raising_line(tmp_path: Path, capsys) -> None:
    root = copy_problem(tmp_path)
    text = BROKEN_REFERENCE.replace("    gen = torch", "    raise KeyError('oops')\n    gen = torch")
    refs, ref = write_reference(tmp_path, text)
    assert main(["validate", "--root", str(root), "--references", str(refs)]) == 1
    assert f"{ref}:5: generate_inputs failed on case 'one': KeyError" in capsys.readouterr().out


def test_validate_reports_inputs_that_do_not_depend_on_the_seed(tmp_path: Path, capsys) -> None:
    root = copy_problem(tmp_path)
    text = BROKEN_REFERENCE.replace("manual_seed(seed)", "manual_seed(0)").replace("[:-1]", "")
    refs, ref = write_reference(tmp_path, text)
    assert main(["validate", "--root", str(root), "--references", str(refs)]) == 1
    assert f"{ref}:4: generate_inputs ignores the seed for a" in capsys.readouterr().out


def test_selftest_of_an_unknown_problem_is_a_usage_error(capsys) -> None:
    assert main(["selftest", "no_such_problem"]) == 2


def test_selftest_judges_the_corpus_and_says_what_it_skipped(capsys) -> None:
    code = main(["selftest", "vector_add", "--cpu-only", "--only", "_ok", "--only", "compile_error"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "solutions/triton_ok.py" in out and "solutions/cuda_compile_error.cu" in out and "0 unexpected" in out
    assert "skipped (gpu_only; CPU host)" in out  # cupy_ok / cuda_ok say why they were not run
    assert "expert_triton.py" not in out


def test_selftest_fails_when_a_corpus_entry_gets_another_verdict(capsys, monkeypatch) -> None:
    import judge.harness

    real = judge.harness.judge_job

    def misjudge(job, **kwargs):
        report = real(job, **kwargs)
        report.verdict = "wrong_answer" if report.verdict == "accepted" else report.verdict
        return report

    monkeypatch.setattr(judge.harness, "judge_job", misjudge)
    code = main(["selftest", "vector_add", "--cpu-only", "--only", "pytorch_ok"])
    out = capsys.readouterr().out
    assert code == 1 and "UNEXPECTED" in out and "1 unexpected" in out


def test_ceilings_on_a_cpu_host_are_the_cpus_own_roofs(capsys, monkeypatch) -> None:
    """The same roofs the CPU worker draws practice runs against (ceilings.measure_cpu)."""
    monkeypatch.setenv("GRIDSTRIDE_JUDGE_DEVICE", "cpu")
    assert main(["ceilings", "--json"]) == 0
    measured = json.loads(capsys.readouterr().out)
    assert measured["device"] == "cpu"
    assert all(measured[k] > 0 for k in ("dram_gbps", "bf16_tflops", "fp32_tflops", "fp8_tflops"))
    assert main(["ceilings"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("CPU") and "GB/s" in text and "GFLOP/s" in text and "fp8" in text


def test_worker_delegates_to_judge_worker(monkeypatch) -> None:
    import judge.worker

    seen: list[list[str]] = []
    monkeypatch.setattr(judge.worker, "main", lambda argv: seen.append(argv) or 0)
    assert main(["worker", "--gpu-model", "cpu"]) == 0
    assert seen == [["--gpu-model", "cpu"]]


def add_solution_entry(tmp_path: Path, entry: str) -> Path:
    root = copy_problem(tmp_path)
    toml = root / "vector_add" / "problem.toml"
    toml.write_text(toml.read_text() + "\n[[solutions]]\n" + entry)
    return root


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        (
            'file = "triton_ok.py"\nlanguage = "triton"\nexpect = "accepted"\nor_timed_like = "pytorch_ok.py"\n',
            "or_timed_like goes with expect = 'rejected'",
        ),
        (
            'file = "triton_ok.py"\nlanguage = "triton"\nexpect = "rejected"\nor_timed_like = "cuda_compile_error.cu"\n',
            "or_timed_like must name an accepted corpus file",
        ),
    ],
)
def test_validate_rejects_an_or_timed_like_that_cannot_be_checked(tmp_path: Path, capsys, entry, error) -> None:
    root = add_solution_entry(tmp_path, entry)
    assert main(["validate", "--root", str(root)]) == 1
    assert error in capsys.readouterr().out


def test_a_neutralised_cheat_meets_its_expectation_only_when_no_faster_than_the_honest_file(
    capsys, monkeypatch
) -> None:
    """A side-stream cheat the single hardware queue times in full is accepted; the corpus
    entry still passes only if its score is no faster than the honest file's (judged on demand
    when --only left it out)."""
    import dataclasses

    import judge.harness
    from judge.protocol import Report

    base = specmod.load("vector_add")
    cheat = specmod.Solution(file="pytorch_ok.py", language="pytorch", expect="rejected", or_timed_like="triton_ok.py")
    honest = next(s for s in base.solutions if s.file == "triton_ok.py")
    spec = dataclasses.replace(base, solutions=[cheat, honest])
    monkeypatch.setattr(specmod, "load_all", lambda: ([spec], []))
    judged: list[str] = []

    for cheat_us, code, note in ((150.0, 0, "neutralised: timed in full, 1.50x"), (50.0, 1, "faster than")):
        scores = {"pytorch": cheat_us, "triton": 100.0}

        def fake(job, scores=scores, **kwargs):
            judged.append(job.submission_id)
            return Report(
                submission_id=job.submission_id,
                attempt=1,
                problem=job.problem,
                language=job.language,
                mode=job.mode,
                verdict="accepted",
                score_us=scores[job.language],
            )

        monkeypatch.setattr(judge.harness, "judge_job", fake)
        judged.clear()
        assert main(["selftest", "vector_add", "--cpu-only", "--only", "pytorch_ok"]) == code
        out = capsys.readouterr().out
        assert judged == ["selftest-vector_add-pytorch_ok.py", "selftest-vector_add-triton_ok.py"]
        assert note in out and ("UNEXPECTED" in out) == (code == 1), out
