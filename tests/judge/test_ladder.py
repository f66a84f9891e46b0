"""Optimization ladders (judge/ladder.py, bench/ladder.py): the format is checked, every rung
compiles and passes the submission's source scan, and the generated table comes from reports."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from judge import ladder as laddermod
from judge import spec as specmod
from judge.harness import source_checks
from judge.protocol import KernelDigest, Report, ShapeTiming
from tests.judge.nvcc_cache import compile_outcome, nvcc_version

ROOT = Path(__file__).resolve().parents[2]
LADDERS, ERRORS = laddermod.load_all_ladders()
RUNGS = [(lad.slug, rung) for lad in LADDERS for rung in lad.rungs]


def bench_module() -> ModuleType:
    module_spec = importlib.util.spec_from_file_location("bench_ladder", ROOT / "bench" / "ladder.py")
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def write_ladder(root: Path, rungs: int, sections: int | None = None, title: str = "Step") -> None:
    directory = root / "demo" / "ladder"
    directory.mkdir(parents=True)
    entries = "".join(
        f'[[rungs]]\ntitle = "{title} {i}"\npath = "problems/vector_add/solutions/cuda_ok.cu"\n'
        f'language = "cuda"\nstep = "change {i}"\n'
        for i in range(1, rungs + 1)
    )
    (directory / "ladder.toml").write_text(entries)
    body = "".join(f"## Step {i}\n\ntext {i}\n\n" for i in range(1, (sections or rungs) + 1))
    (directory / "editorial.md").write_text("Intro.\n\n" + body)


def test_every_ladder_in_the_repository_loads() -> None:
    assert ERRORS == []
    specs, _errors = specmod.load_all()
    assert {lad.slug for lad in LADDERS} == {spec.slug for spec in specs}  # every problem has one
    for lad in LADDERS:
        assert laddermod.MIN_RUNGS <= len(lad.rungs) <= laddermod.MAX_RUNGS
        assert lad.intro and all(r.editorial for r in lad.rungs)


def test_a_well_formed_ladder_loads_with_its_sections(tmp_path: Path) -> None:
    write_ladder(tmp_path, 3)
    lad = laddermod.load_ladder("demo", tmp_path)
    assert lad is not None
    assert [r.title for r in lad.rungs] == ["Step 1", "Step 2", "Step 3"]
    assert lad.rungs[1].editorial == "text 2" and lad.intro == "Intro."
    assert lad.figures is None


def test_a_problem_without_a_ladder_has_none(tmp_path: Path) -> None:
    assert laddermod.load_ladder("demo", tmp_path) is None


@pytest.mark.parametrize(
    ("rungs", "sections", "message"), [(2, None, "3 to 6"), (7, None, "3 to 6"), (3, 2, "2 '## ' sections")]
)
def test_a_ladder_with_the_wrong_number_of_rungs_or_sections_is_refused(
    tmp_path: Path, rungs: int, sections: int | None, message: str
) -> None:
    write_ladder(tmp_path, rungs, sections)
    with pytest.raises(laddermod.LadderError, match=message):
        laddermod.load_ladder("demo", tmp_path)


def test_a_section_heading_must_match_its_rung(tmp_path: Path) -> None:
    write_ladder(tmp_path, 3, title="Other")
    with pytest.raises(laddermod.LadderError, match="section 1 is 'Step 1', rung 1 is 'Other 1'"):
        laddermod.load_ladder("demo", tmp_path)


def test_a_rung_outside_the_repository_is_refused(tmp_path: Path) -> None:
    write_ladder(tmp_path, 3)
    toml = tmp_path / "demo" / "ladder" / "ladder.toml"
    toml.write_text(toml.read_text().replace("problems/vector_add/solutions/cuda_ok.cu", "../../etc/passwd", 1))
    with pytest.raises(laddermod.LadderError, match="not a file of the repository"):
        laddermod.load_ladder("demo", tmp_path)


@pytest.mark.parametrize(("slug", "rung"), RUNGS, ids=[f"{s}/{r.path.rsplit('/', 1)[-1]}" for s, r in RUNGS])
def test_every_rung_passes_the_source_scan_and_has_the_problems_signature(slug: str, rung: laddermod.Rung) -> None:
    problem = specmod.load(slug)
    source = rung.source()
    assert rung.language in problem.languages
    assert source_checks.find_forbidden(source, rung.language, problem.forbidden[rung.language]) == []
    if rung.language == "cuda":
        params = source_checks.cuda_solve_parameters(source)
        assert params is not None and len(params) == len(problem.signature())


CUDA_RUNGS = [(s, r) for s, r in RUNGS if r.language == "cuda"]


@pytest.mark.parametrize(("slug", "rung"), CUDA_RUNGS, ids=[f"{s}/{r.path.rsplit('/', 1)[-1]}" for s, r in CUDA_RUNGS])
def test_every_cuda_rung_compiles_with_the_judges_command_line(slug: str, rung: laddermod.Rung, tmp_path: Path) -> None:
    if nvcc_version() is None:
        pytest.skip("nvcc is not installed")
    code, log = compile_outcome(ROOT / rung.path, tmp_path)
    assert code == 0, log[-2000:]


def shape(name: str, median: float, speedup: float | None) -> ShapeTiming:
    return ShapeTiming(
        name=name, sizes={"n": 1}, n=10, median_us=median, mean_us=median, p10_us=median, p90_us=median,
        min_us=median, ci_low_us=median, ci_high_us=median, flops=0.0, bytes=8.0, gbps=1.0, tflops=0.0,
        sol_pct=50.0, floor_us=median / 2, speedup_vs_reference=speedup,
    )  # fmt: skip


def test_the_generated_table_is_built_from_the_reports_figures() -> None:
    bench = bench_module()
    report = Report(
        submission_id="s", attempt=1, problem="transpose", language="cuda", mode="benchmark", verdict="accepted",
        benchmarks=[shape("a", 100.0, 2.0), shape("b", 400.0, 8.0)], score_us=200.0, sol_pct=50.0,
        kernels=[KernelDigest(name="transpose_tiles(float const*, float*, int, int)", duration_us=99.0)],
    )  # fmt: skip
    figures = bench.rung_figures(report)
    assert figures["speedup_vs_reference"] == pytest.approx(4.0)  # geometric mean of 2 and 8
    assert [s["median_us"] for s in figures["shapes"]] == [100.0, 400.0]
    rung = {"rung": 1, "title": "Naive", "path": "p", "language": "cuda", **figures}
    table = bench.render_table([{"slug": "transpose", "rungs": [rung]}])
    assert (
        "| transpose | 1. Naive | cuda | accepted | 200 us | 50% | 4x | `transpose_tiles(float const*, float*, int, int)` |"
        in table
    )


def test_the_doc_keeps_its_text_outside_the_generated_part(tmp_path: Path) -> None:
    bench = bench_module()
    doc = tmp_path / "ladders.md"
    doc.write_text(f"Intro\n\n{bench.BEGIN}\nold\n{bench.END}\n\nOutro\n")
    bench.write_doc("| t |\n", "Header", doc)
    text = doc.read_text()
    assert text.startswith("Intro\n\n") and text.endswith("\n\nOutro\n")
    assert "old" not in text and "Header\n\n| t |\n" in text


def gpu_rung(lad: laddermod.Ladder, index: int, score: float) -> dict[str, object]:
    rung = lad.rungs[index - 1]
    return {"rung": index, "title": rung.title, "path": rung.path, "language": rung.language,
            "verdict": "accepted", "score_us": score, "sol_pct": 80.0, "speedup_vs_reference": 1.5,
            "shapes": [], "kernels": []}  # fmt: skip


def gpu_run(slug: str, rungs: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{"slug": slug, "mode": "benchmark", "system": {"gpu": "NVIDIA H200"}, "ceilings": {},
             "date": "2026-12-03", "quick": True, "rungs": rungs}]  # fmt: skip


def isolated_ladder_dirs(bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """figures.json files and the doc go under tmp_path, one folder per slug."""
    monkeypatch.setattr(bench, "DOC", tmp_path / "ladders.md")

    def figures_path(slug: str) -> Path:
        (tmp_path / slug).mkdir(exist_ok=True)
        return tmp_path / slug / "figures.json"

    monkeypatch.setattr(bench, "figures_path", figures_path)


def test_a_ladder_judged_over_two_calls_is_written_whole_and_the_others_keep_their_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = bench_module()
    isolated_ladder_dirs(bench, tmp_path, monkeypatch)
    reduction = next(lad for lad in LADDERS if lad.slug == "reduction")
    assert len(reduction.rungs) == 3
    (tmp_path / "a.json").write_text(
        json.dumps(gpu_run("reduction", [gpu_rung(reduction, 1, 30.0), gpu_rung(reduction, 2, 20.0)]))
    )
    (tmp_path / "b.json").write_text(json.dumps(gpu_run("reduction", [gpu_rung(reduction, 3, 12.5)])))
    matmul = next(lad for lad in LADDERS if lad.slug == "matmul")
    kept = gpu_run("matmul", [gpu_rung(matmul, i, 100.0 / i) for i in range(1, len(matmul.rungs) + 1)])[0]
    (tmp_path / "matmul").mkdir()
    (tmp_path / "matmul" / "figures.json").write_text(json.dumps(kept))
    softmax = next(lad for lad in LADDERS if lad.slug == "softmax")  # one rung judged: left as it was
    (tmp_path / "c.json").write_text(json.dumps(gpu_run("softmax", [gpu_rung(softmax, 1, 9.0)])))

    assert bench.main(["--from-json", *(str(tmp_path / f) for f in ("a.json", "b.json", "c.json"))]) == 0
    written = json.loads((tmp_path / "reduction" / "figures.json").read_text())
    assert [r["score_us"] for r in written["rungs"]] == [30.0, 20.0, 12.5]
    assert not (tmp_path / "softmax" / "figures.json").exists()
    doc = (tmp_path / "ladders.md").read_text()
    assert "on NVIDIA H200 (2026-12-03)" in doc
    assert f"| reduction | 3. {reduction.rungs[2].title} | cuda | accepted | 12.5 us | 80% | 1.5x | `-` |" in doc
    assert f"| matmul | 1. {matmul.rungs[0].title} |" in doc  # kept from its figures.json
    assert "| softmax |" not in doc


def test_a_resumed_run_judges_only_the_rungs_no_earlier_call_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = bench_module()
    reduction = next(lad for lad in LADDERS if lad.slug == "reduction")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "call1.json").write_text(
        json.dumps(gpu_run("reduction", [gpu_rung(reduction, 1, 30.0), gpu_rung(reduction, 2, 20.0)]))
    )
    judged: list[str] = []

    def judge_job(job: object, config: object) -> Report:
        judged.append(job.submission_id)  # type: ignore[attr-defined]
        return Report(submission_id="s", attempt=1, problem="reduction", language="cuda", mode="test",
                      verdict="accepted", score_us=11.0)  # fmt: skip

    import judge.harness

    monkeypatch.setattr(judge.harness, "judge_job", judge_job)
    bench.main(["--resume", str(runs), "reduction"])
    assert judged == ["ladder-reduction-3"]
    (this_call,) = [p for p in runs.glob("*.json") if p.name != "call1.json"]
    fig = json.loads(this_call.read_text())[0]
    assert [r["rung"] for r in fig["rungs"]] == [1, 2, 3] and fig["rungs"][2]["score_us"] == 11.0


def test_table_cells_keep_three_significant_digits_and_whole_numbers_past_a_thousand() -> None:
    cell = bench_module()._cell
    assert [cell(12.34, " us"), cell(2120.5, " us"), cell(49106.7, " us")] == ["12.3 us", "2120 us", "49107 us"]
    assert cell(0.2512, "%") == "0.251%" and cell(None, "x") == "-"


def test_where_the_time_went_is_read_from_the_rungs_timelines() -> None:
    def rung(judged: float, started: float, ready: float, pool: float) -> dict[str, object]:
        timeline = [["child started", started], ["child ready", ready], ["case a: checked", ready + 0.5],
                    ["s1: input pool made", pool], ["child done", pool + 2]]  # fmt: skip
        return {"judged_s": judged, "timeline_s": timeline}

    figs = [{"rungs": [rung(20.0, 0.0, 9.0, 12.0), rung(10.0, 1.0, 2.0, 8.0)]}, {"rungs": [{"judged_s": 5.0}]}]
    summary = bench_module().where_time_went(figs).splitlines()
    assert summary[0] == "2 judgings, 30 s, median 15.0 s (10.0-20.0 s)"  # the rung without a timeline is left out
    assert summary[1] == "waiting for the child's start-up: median 5.00 s, 10 s in all"
    assert summary[2] == "tests: median 4.50 s, 9 s in all; start-up they could overlap: 4 s"
