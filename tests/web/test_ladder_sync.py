"""Optimization ladders in the catalog: sync_problems stores each problem's rungs with their code
(read from the repository), editorial sections and GPU figures, and reports a broken ladder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gridstride.catalog.actions import sync_problems
from gridstride.catalog.ladders import LadderError, read_ladder
from gridstride.catalog.models import Ladder
from ladder_fixtures import RUNGS, SLUG, write_ladder
from site_fixtures import problems

from judge import ladder as judge_ladder
from judge import spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(tmp_path: Path, empty_catalog: None) -> Path:
    problems_root = write_ladder(tmp_path)
    sync_problems(problems_root, problems_root.parent)
    return problems_root


def test_sync_stores_rungs_with_their_code_editorial_and_figures(root: Path) -> None:
    ladder = Ladder.objects.get(problem__slug=SLUG)
    rungs = list(ladder.rungs.all())
    assert [r.title for r in rungs] == [t for t, _, _ in RUNGS]
    assert [r.position for r in rungs] == [1, 2, 3]
    assert "ZETA_SOURCE_2" in rungs[1].source and rungs[1].language == "cuda"
    assert rungs[0].editorial.startswith("Zeta editorial paragraph 1") and "##" not in rungs[0].editorial
    assert ladder.intro.startswith("Zeta introduction")
    assert rungs[2].figures["score_us"] == 200.0 and rungs[2].figures["kernels"][0]["name"] == "zeta_kernel_digest_3"
    assert ladder.run["system"]["gpu"] == "NVIDIA H200" and "rungs" not in ladder.run
    again = sync_problems(root, root.parent)
    assert again.ladders == [] and again.errors == []


def test_a_change_is_stored_again_and_a_removed_ladder_is_deleted(root: Path) -> None:
    source = root.parent / f"problems/{SLUG}/ladder/1_rung.cu"
    source.write_text(source.read_text() + "// changed\n")
    assert sync_problems(root, root.parent).ladders == [SLUG]
    assert "// changed" in Ladder.objects.get(problem__slug=SLUG).rungs.get(position=1).source
    shutil.rmtree(root / SLUG / "ladder")
    assert sync_problems(root, root.parent).ladders_removed == [SLUG]
    assert not Ladder.objects.exists()


def test_figures_of_a_renamed_rung_are_left_out(tmp_path: Path) -> None:
    problems_root = write_ladder(tmp_path)
    toml = problems_root / SLUG / "ladder" / "ladder.toml"
    toml.write_text(toml.read_text().replace("Zeta tiled rung", "Zeta tiled rung, renamed"))
    editorial = problems_root / SLUG / "ladder" / "editorial.md"
    editorial.write_text(editorial.read_text().replace("## Zeta tiled rung", "## Zeta tiled rung, renamed"))
    data = read_ladder(problems_root / SLUG, tmp_path)
    assert data is not None
    assert [r.figures is not None for r in data.rungs] == [True, False, True]


def test_a_broken_ladder_is_reported_and_keeps_what_was_stored(root: Path) -> None:
    editorial = root / SLUG / "ladder" / "editorial.md"
    editorial.write_text(editorial.read_text().replace("## Zeta blocked rung", "Zeta blocked rung"))
    report_ = sync_problems(root, root.parent)
    assert any("editorial.md" in e and "2 '## ' sections for 3 rungs" in e for e in report_.errors)
    assert Ladder.objects.get(problem__slug=SLUG).rungs.count() == 3


def test_a_rung_path_outside_the_repository_is_refused(tmp_path: Path) -> None:
    problems_root = write_ladder(tmp_path)
    (tmp_path.parent / "outside.cu").write_text("// not ours\n")
    toml = problems_root / SLUG / "ladder" / "ladder.toml"
    toml.write_text(toml.read_text().replace(f"problems/{SLUG}/ladder/1_rung.cu", "../outside.cu", 1))
    with pytest.raises(LadderError, match="not a file of the repository"):
        read_ladder(problems_root / SLUG, tmp_path)


def test_the_sites_reader_agrees_with_the_judges_on_every_ladder_of_the_repository() -> None:
    ladders, errors = judge_ladder.load_all_ladders()
    assert errors == [] and ladders
    for expected in ladders:
        data = read_ladder(spec.PROBLEMS_DIR / expected.slug, spec.REPO_ROOT)
        assert data is not None
        assert data.intro == expected.intro
        assert [(r.title, r.path, r.language, r.step, r.editorial) for r in data.rungs] == [
            (r.title, r.path, r.language, r.step, r.editorial) for r in expected.rungs
        ]
        assert [r.source for r in data.rungs] == [r.source() for r in expected.rungs]
    problems()
    assert set(Ladder.objects.values_list("problem__slug", flat=True)) == {lad.slug for lad in ladders}
