"""A problem's optimization ladder as the catalog stores it, read from problems/<slug>/ladder/.

judge/ladder.py is the ladder's loader and checker (`python -m judge validate` reports a broken
one); the site imports nothing of the judge but judge/spec.py and judge/protocol.py
(tests/test_architecture.py), so it reads the same three files here, with the standard library:
ladder.toml (the rungs, in order), editorial.md (one `## ` section per rung) and figures.json
(written by bench/ladder.py on the GPU host; absent until a GPU run). Rung paths are relative to
the repository root (as in judge/ladder.py); a source outside it is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judge.spec import LANGUAGES, SOURCE_SUFFIX

LADDER_DIR, LADDER_FILE, EDITORIAL_FILE, FIGURES_FILE = "ladder", "ladder.toml", "editorial.md", "figures.json"
MIN_RUNGS, MAX_RUNGS = 3, 6
MAX_SOURCE_BYTES = 256 * 1024
_SECTION = re.compile(r"^## (.+)$", re.M)


class LadderError(ValueError):
    """A ladder the site cannot store; the message names the file."""


@dataclass(frozen=True)
class RungData:
    position: int  # 1-based, the ladder's order
    title: str
    path: str  # repository-relative
    language: str
    step: str
    source: str
    editorial: str  # Markdown, without its heading
    figures: dict[str, Any] | None  # this rung's entry of figures.json, when it matches the rung


@dataclass(frozen=True)
class LadderData:
    slug: str
    intro: str  # the editorial's text before the first rung
    rungs: tuple[RungData, ...]
    run: dict[str, Any] | None  # figures.json without its rungs: gpu system, ceilings, mode, date
    content_hash: str  # of every file read, so a sync can tell an unchanged ladder


def read_ladder(problem_dir: Path, repo_root: Path) -> LadderData | None:
    """The ladder of the problem in problem_dir, None when it has none; LadderError when broken."""
    directory = problem_dir / LADDER_DIR
    toml_path = directory / LADDER_FILE
    if not toml_path.is_file():
        return None
    digest = hashlib.sha256()
    toml_text = _read(toml_path, digest)
    try:
        raw_rungs = tomllib.loads(toml_text).get("rungs", [])
    except tomllib.TOMLDecodeError as exc:
        raise LadderError(f"{toml_path}: invalid TOML: {exc}") from exc
    if not isinstance(raw_rungs, list) or not MIN_RUNGS <= len(raw_rungs) <= MAX_RUNGS:
        raise LadderError(f"{toml_path}: a ladder has {MIN_RUNGS} to {MAX_RUNGS} [[rungs]]")
    editorial_path = directory / EDITORIAL_FILE
    if not editorial_path.is_file():
        raise LadderError(f"{editorial_path}: missing (one '## ' section per rung)")
    parts = _SECTION.split(_read(editorial_path, digest))
    sections = list(zip(parts[1::2], parts[2::2], strict=True))
    if len(sections) != len(raw_rungs):
        raise LadderError(f"{editorial_path}: {len(sections)} '## ' sections for {len(raw_rungs)} rungs")
    figures_path = directory / FIGURES_FILE
    figures = _figures(figures_path, _read(figures_path, digest)) if figures_path.is_file() else None
    by_position = {r.get("rung"): r for r in (figures or {}).get("rungs", []) if isinstance(r, dict)}
    rungs = []
    for position, (raw, (heading, body)) in enumerate(zip(raw_rungs, sections, strict=True), start=1):
        rung = _rung(toml_path, position, raw, heading, body, repo_root, digest)
        found = by_position.get(position)
        # Figures of a rung that has since changed title or file are another kernel's: left out.
        if found and found.get("title") == rung.title and found.get("path") == rung.path:
            rung = replace(rung, figures=found)
        rungs.append(rung)
    run = {k: v for k, v in figures.items() if k != "rungs"} if figures else None
    return LadderData(problem_dir.name, parts[0].strip(), tuple(rungs), run, digest.hexdigest()[:32])


def _read(path: Path, digest: Any) -> str:
    text = path.read_text(encoding="utf-8")
    digest.update(path.name.encode() + b"\0" + text.encode() + b"\0")
    return text


def _figures(path: Path, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LadderError(f"{path}: invalid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("rungs", []), list):
        raise LadderError(f"{path}: expected bench/ladder.py's object with a list of rungs")
    return data


def _rung(toml_path: Path, position: int, raw: Any, heading: str, body: str, repo_root: Path, digest: Any) -> RungData:
    if not isinstance(raw, dict):
        raise LadderError(f"{toml_path}: rung {position} must be a table")
    missing = [k for k in ("title", "path", "language", "step") if not isinstance(raw.get(k), str) or not raw[k]]
    if missing:
        raise LadderError(f"{toml_path}: rung {position} lacks {', '.join(missing)}")
    if raw["language"] not in LANGUAGES:
        raise LadderError(f"{toml_path}: rung {position}: unknown language {raw['language']!r}")
    root = repo_root.resolve()
    source_path = (root / raw["path"]).resolve()
    if root not in source_path.parents or not source_path.is_file():
        raise LadderError(f"{toml_path}: rung {position}: {raw['path']} is not a file of the repository")
    if source_path.suffix != SOURCE_SUFFIX[raw["language"]]:
        raise LadderError(f"{toml_path}: rung {position}: {raw['path']} is not a {raw['language']} source")
    if source_path.stat().st_size > MAX_SOURCE_BYTES:
        raise LadderError(f"{toml_path}: rung {position}: {raw['path']} is over {MAX_SOURCE_BYTES // 1024} KiB")
    if not heading.strip().startswith(raw["title"]):
        editorial = toml_path.with_name(EDITORIAL_FILE)
        raise LadderError(
            f"{editorial}: section {position} is {heading.strip()!r}, rung {position} is {raw['title']!r}"
        )
    digest.update(raw["path"].encode() + b"\0")
    source = _read(source_path, digest)
    return RungData(position, raw["title"], raw["path"], raw["language"], raw["step"], source, body.strip(), None)
