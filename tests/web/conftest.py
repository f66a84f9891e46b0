"""The site's tests: the repository's catalog read from disk once, not once per test.

Most tests sync problems/ into their (rolled-back) database; the sync's reading and parsing of
the catalog (judge.spec.load_all and the ladders: about two thirds of its cost, ~0.4 s a test on
the two-core machine) gives the same result every time while no file it read changes. Only that
reading is remembered, and checked against the size and modification time of every file it
depends on at each call: the database writes still happen in every test, and a catalog in a
temporary folder (tests that build their own problems) is read from disk every time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gridstride.catalog import ladders

from judge import spec as judge_spec

REPO_ROOT = Path(judge_spec.REPO_ROOT).resolve()
PROBLEMS_DIR = Path(judge_spec.PROBLEMS_DIR).resolve()
REFERENCE_DIR = Path(judge_spec.REFERENCE_DIR).resolve()


def files_under(*tops: Path) -> list[str]:
    return [os.path.join(folder, name) for top in tops for folder, _, names in os.walk(top) for name in names]


def stamp(paths: Iterable[str]) -> tuple[tuple[str, int, int], ...]:
    """Each file's (path, size, modification time); a missing one as (path, -1, -1)."""
    out = []
    for path in sorted(set(paths)):
        try:
            st = os.stat(path)
            out.append((path, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((path, -1, -1))
    return tuple(out)


class Remembered:
    """`read(*args)`'s result kept per arguments while the files it depends on are unchanged;
    `depends(args, result)` names them. Calls for which `applies(*args)` is false read anew."""

    def __init__(
        self,
        read: Callable[..., Any],
        applies: Callable[..., bool],
        depends: Callable[[tuple[Any, ...], Any], Iterable[str]],
    ) -> None:
        self.read, self.applies, self.depends = read, applies, depends
        self.kept: dict[tuple[str, ...], tuple[tuple[tuple[str, int, int], ...], Any]] = {}

    def __call__(self, *args: Any) -> Any:
        if not self.applies(*args):
            return self.read(*args)
        key = tuple(str(Path(a).resolve()) for a in args)
        if key in self.kept:
            files, result = self.kept[key]
            if stamp(path for path, _, _ in files) == files:
                return result
        result = self.read(*args)  # an exception (a broken catalog) is raised, and not kept
        self.kept[key] = (stamp(self.depends(args, result)), result)
        return result


_real_load_all = judge_spec.load_all
_load_all_once = Remembered(
    _real_load_all,
    applies=lambda root: Path(root).resolve() == PROBLEMS_DIR,
    depends=lambda args, result: [*files_under(PROBLEMS_DIR, REFERENCE_DIR), str(PROBLEMS_DIR), str(REFERENCE_DIR)],
)


def load_all(
    root: Path = judge_spec.PROBLEMS_DIR,
) -> tuple[list[judge_spec.ProblemSpec], list[judge_spec.ProblemError]]:
    specs, errors = _load_all_once(root)
    return list(specs), list(errors)  # fresh lists (a caller may change them); the specs are frozen


def _ladder_files(args: tuple[Any, ...], result: ladders.LadderData | None) -> list[str]:
    problem_dir, repo_root = (Path(a).resolve() for a in args)
    rungs = [str(repo_root / rung.path) for rung in result.rungs] if result else []
    return [*files_under(problem_dir / ladders.LADDER_DIR), str(problem_dir / ladders.LADDER_DIR), *rungs]


read_ladder = Remembered(
    ladders.read_ladder,
    applies=lambda problem_dir, repo_root: (
        Path(problem_dir).resolve().parent == PROBLEMS_DIR and Path(repo_root).resolve() == REPO_ROOT
    ),
    depends=_ladder_files,
)


@pytest.fixture(scope="session", autouse=True)
def catalog_read_once() -> Iterator[None]:
    patch = pytest.MonkeyPatch()
    patch.setattr(judge_spec, "load_all", load_all)
    patch.setattr(ladders, "read_ladder", read_ladder)
    yield
    patch.undo()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any, catalog_read_once: None) -> None:
    """The test database starts with problems/ synced, as site_fixtures.problems() would sync it in
    every test: the tests that run in a rolled-back transaction (pytest-django runs them first)
    find it there instead of writing it again. A transactional test's flush empties it; the tests
    after it sync again through problems(). Tests of the sync itself empty the catalog first."""
    from gridstride.catalog.actions import sync_problems

    with django_db_blocker.unblock():
        sync_problems()


@pytest.fixture
def empty_catalog(db: None) -> None:
    """No problem in the database, as before the first sync (for the tests of the sync itself)."""
    from gridstride.catalog.models import Problem

    Problem.objects.all().delete()
