"""Integrity signals for human review (docs/assessments.md, "Signals"): never a verdict, never an
automatic rejection. Each says what was seen; the reviewer decides what it means."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from gridstride.catalog import ladders
from gridstride.lib.similarity import fingerprint, similarity
from judge import spec as specmod

# Pastes of at least this many characters are listed (a line or two of boilerplate is not).
LARGE_PASTE_CHARS = 200
# Similarity at or above this is listed as worth a look.
SIMILAR = 0.5


@dataclass
class Similar:
    problem: str
    other: str  # a candidate's name or a corpus file
    score: float
    kind: str  # "candidate" or "reference"


@dataclass
class Signals:
    similar: list[Similar] = field(default_factory=list)
    pastes: list[dict[str, Any]] = field(default_factory=list)
    away_count: int = 0
    away_seconds: float = 0.0
    rules: list[dict[str, Any]] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.similar or self.pastes or self.away_count or self.rules)

    def as_dict(self) -> dict[str, Any]:
        return {
            "similar": [s.__dict__ for s in self.similar],
            "large_pastes": self.pastes,
            "away_count": self.away_count,
            "away_seconds": round(self.away_seconds, 1),
            "rules_raised": self.rules,
        }


def project_solutions(slug: str) -> list[tuple[str, str]]:
    """The project's own correct solutions of a problem, labelled by their repository path: the
    corpus's accepted files, the reference directory's experts and the rungs of the problem's
    optimization ladder (docs/ladders.md: shown on the site to anyone who solved the problem or gave
    up on it), each once: what a candidate could have copied from this repository or the site."""
    found: list[tuple[str, str]] = []
    problems_dir = Path(settings.PROBLEMS_DIR)
    try:
        problem = specmod.load(slug, problems_dir)
    except specmod.ProblemError:
        return found
    for sol in problem.solutions:
        if sol.expect == "accepted":
            path = problem.directory / "solutions" / sol.file
            found.append((f"problems/{slug}/solutions/{sol.file}", path.read_text(errors="replace")))
    for path in sorted(problem.reference_dir.glob("expert*")):
        found.append((f"reference_kernels/{slug}/{path.name}", path.read_text(errors="replace")))
    try:
        ladder = ladders.read_ladder(problem.directory, problems_dir.parent)
    except ladders.LadderError:
        ladder = None  # a broken ladder is reported by sync_problems; the files above still count
    seen = {label for label, _ in found}
    for rung in ladder.rungs if ladder else ():
        if rung.path not in seen:  # a rung is often a corpus file or an expert already listed
            seen.add(rung.path)
            found.append((rung.path, rung.source))
    return found


def similarity_signals(
    mine: dict[str, str],
    others: dict[str, dict[str, str]],
    starters: dict[str, list[str]],
    references: dict[str, list[tuple[str, str]]],
) -> list[Similar]:
    """mine: problem slug -> final code; others: candidate label -> (slug -> code); starters: slug -> sources."""
    found: list[Similar] = []
    for slug, code in mine.items():
        if not code.strip():
            continue
        ignore = frozenset().union(*(fingerprint(s) for s in starters.get(slug, [])))
        mine_fp = fingerprint(code)
        for label, theirs in others.items():
            other = theirs.get(slug)
            score = similarity(mine_fp, fingerprint(other), ignore) if other else None
            if score is not None and score >= SIMILAR:
                found.append(Similar(slug, label, round(score, 3), "candidate"))
        for label, source in references.get(slug, []):
            score = similarity(mine_fp, fingerprint(source), ignore)
            if score is not None and score >= SIMILAR:
                found.append(Similar(slug, label, round(score, 3), "reference"))
    found.sort(key=lambda s: -s.score)
    return found
