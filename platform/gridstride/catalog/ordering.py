"""The learning order of problems: track by track as the path goes (judge/spec.py TRACKS), easy
before hard within a track, then the problem's own order. The home page, /leaderboards/ and the
API (so `gridstride problems`) list problems in it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from gridstride.catalog.models import Problem
from judge.spec import DIFFICULTIES, TRACKS

P = TypeVar("P", bound=Problem)


def learning_key(p: Problem) -> tuple[int, int, int, str]:
    track = TRACKS.index(p.track) if p.track in TRACKS else len(TRACKS)
    difficulty = DIFFICULTIES.index(p.difficulty) if p.difficulty in DIFFICULTIES else len(DIFFICULTIES)
    return track, difficulty, p.order, p.slug


def in_learning_order(problems: Iterable[P]) -> list[P]:
    return sorted(problems, key=learning_key)
