"""Optimization ladders: problems/<slug>/ladder/ladder.toml and editorial.md (stdlib only).

A ladder is 3 to 6 solutions of one problem, from the naive kernel to the expert one, each a
step a learner would take. ladder.toml lists the rungs in order; each names its source file
(repository-relative: a file under the ladder folder, a corpus file or an expert kernel), its
language, a title and the one change it makes over the rung before. editorial.md has one
`## ` section per rung, in the same order, whose heading starts with the rung's title. The
figures of each rung (judged on a GPU by bench/ladder.py) live beside them in figures.json,
generated and never typed in. Like judge/spec.py this module is safe for the web side to import.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import spec as specmod

MIN_RUNGS, MAX_RUNGS = 3, 6
LADDER_FILE, EDITORIAL_FILE, FIGURES_FILE = "ladder.toml", "editorial.md", "figures.json"
_SECTION = re.compile(r"^## (.+)$", re.M)


class LadderError(ValueError):
    """A ladder definition is invalid; the message names the file."""


@dataclass(frozen=True)
class Rung:
    title: str
    path: str  # repository-relative
    language: str
    step: str  # the change this rung makes over the one before
    editorial: str  # its editorial section (markdown, without the heading)

    def source(self) -> str:
        return (specmod.REPO_ROOT / self.path).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Ladder:
    slug: str
    rungs: tuple[Rung, ...]
    intro: str  # the editorial's text before the first rung
    figures: dict[str, Any] | None  # figures.json, when a GPU run has produced it

    @property
    def directory(self) -> Path:
        return specmod.PROBLEMS_DIR / self.slug / "ladder"


def ladder_dir(slug: str, root: Path = specmod.PROBLEMS_DIR) -> Path:
    return root / slug / "ladder"


def load_ladder(slug: str, root: Path = specmod.PROBLEMS_DIR) -> Ladder | None:
    """The problem's ladder, None when it has none; raises LadderError when it is broken."""
    directory = ladder_dir(slug, root)
    toml_path = directory / LADDER_FILE
    if not toml_path.is_file():
        return None
    try:
        data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LadderError(f"{toml_path}: invalid TOML: {exc}") from exc
    raw_rungs = data.get("rungs", [])
    if not isinstance(raw_rungs, list) or not MIN_RUNGS <= len(raw_rungs) <= MAX_RUNGS:
        raise LadderError(f"{toml_path}: a ladder has {MIN_RUNGS} to {MAX_RUNGS} [[rungs]]")
    editorial_path = directory / EDITORIAL_FILE
    if not editorial_path.is_file():
        raise LadderError(f"{editorial_path}: missing (one '## ' section per rung)")
    text = editorial_path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    intro, sections = parts[0].strip(), list(zip(parts[1::2], parts[2::2], strict=True))
    if len(sections) != len(raw_rungs):
        raise LadderError(f"{editorial_path}: {len(sections)} '## ' sections for {len(raw_rungs)} rungs")
    rungs = []
    for index, (raw, (heading, body)) in enumerate(zip(raw_rungs, sections, strict=True), start=1):
        if not isinstance(raw, dict):
            raise LadderError(f"{toml_path}: rung {index} must be a table")
        missing = [key for key in ("title", "path", "language", "step") if not isinstance(raw.get(key), str)]
        if missing:
            raise LadderError(f"{toml_path}: rung {index} lacks {', '.join(missing)}")
        if raw["language"] not in specmod.LANGUAGES:
            raise LadderError(f"{toml_path}: rung {index}: unknown language {raw['language']!r}")
        source = (specmod.REPO_ROOT / raw["path"]).resolve()
        if specmod.REPO_ROOT not in source.parents or not source.is_file():
            raise LadderError(f"{toml_path}: rung {index}: {raw['path']} is not a file of the repository")
        if source.suffix != specmod.SOURCE_SUFFIX[raw["language"]]:
            raise LadderError(f"{toml_path}: rung {index}: {raw['path']} is not a {raw['language']} source")
        if not heading.strip().startswith(raw["title"]):
            raise LadderError(
                f"{editorial_path}: section {index} is {heading.strip()!r}, rung {index} is {raw['title']!r}"
            )
        rungs.append(Rung(raw["title"], raw["path"], raw["language"], raw["step"], body.strip()))
    figures_path = directory / FIGURES_FILE
    figures = json.loads(figures_path.read_text(encoding="utf-8")) if figures_path.is_file() else None
    return Ladder(slug=slug, rungs=tuple(rungs), intro=intro, figures=figures)


def load_all_ladders(root: Path = specmod.PROBLEMS_DIR) -> tuple[list[Ladder], list[LadderError]]:
    ladders: list[Ladder] = []
    errors: list[LadderError] = []
    for directory in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        try:
            ladder = load_ladder(directory.name, root)
        except LadderError as exc:
            errors.append(exc)
            continue
        if ladder is not None:
            ladders.append(ladder)
    return ladders, errors
