"""Typed shapes of the API's JSON (they make the OpenAPI document)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Schema


class Error(Schema):
    detail: str


class ProblemOut(Schema):
    slug: str
    title: str
    track: str
    difficulty: str
    tags: list[str]
    languages: list[str]
    url: str


class TensorOut(Schema):
    name: str
    dtype: str
    shape: list[str | int]


class CaseOut(Schema):
    name: str
    sizes: dict[str, int]


class ProblemDetailOut(ProblemOut):
    statement: str
    starters: dict[str, str]
    sizes: list[str]
    inputs: list[TensorOut]
    outputs: list[TensorOut]
    tolerance: dict[str, Any]
    limits: dict[str, Any]
    benchmarks: list[CaseOut]
    content_hash: str
    ranking_hash: str


class SubmitIn(Schema):
    problem: str
    language: str
    source: str
    mode: Literal["run", "submit"] = "run"
    gpu: str | None = None


class StatusOut(Schema):
    id: str
    status: str
    final: bool
    verdict: str
    verdict_text: str
    stage: str
    progress: dict[str, Any]
    queue_position: int | None
    elapsed_s: float
    ranked: bool
    score_us: float | None
    sol_pct: float | None
    gpu_model: str
    mode: str
    url: str
    report_url: str


class ShapeFigures(Schema):
    name: str
    sizes: str
    median: str
    ci: str
    n: str
    bandwidth: str
    compute: str
    sol: str
    speedup: str
    bound: str


class MismatchFigures(Schema):
    index: str
    expected: str
    got: str
    abs_err: str
    rel_err: str


class FailureFigures(Schema):
    name: str
    sizes: str
    output: str
    message: str
    positions: str
    out_of_tolerance: str
    max_abs_err: str
    max_rel_err: str
    tolerance: str
    mismatches: list[MismatchFigures]


class Figures(Schema):
    """The report's figures formatted as the site shows them (units chosen per magnitude)."""

    summary: str
    verdict: str
    unranked: str
    cases: str
    score: str
    sol: str
    speedup: str
    rank: str
    shapes: list[ShapeFigures]
    failures: list[FailureFigures]
    failures_total: int


class SubmissionOut(StatusOut):
    figures: Figures | None
    problem: str
    language: str
    owner: str
    is_public: bool
    created_at: datetime
    source: str
    report: dict[str, Any] | None


class SubmissionListItem(Schema):
    id: str
    problem: str
    language: str
    mode: str
    status: str
    verdict: str
    gpu_model: str
    score_us: float | None
    sol_pct: float | None
    created_at: datetime


class EntryOut(Schema):
    rank: int
    rank_text: str  # "" on an unranked board (CPU practice runs)
    score_text: str
    interval_text: str
    sol_text: str
    speedup_text: str
    tied: bool
    user: str
    language: str
    score_us: float | None
    score_low_us: float | None
    score_high_us: float | None
    sol_pct: float | None
    speedup: float | None
    created_at: datetime
    submission: str | None
    is_viewer: bool


class BoardOut(Schema):
    problem: str
    gpu: str
    language: str | None
    window: str
    ranked: bool
    total: int
    total_text: str
    entries: list[EntryOut]
    viewer: EntryOut | None


class MeOut(Schema):
    username: str
    email: str


class RungShapeOut(Schema):
    name: str
    median: str
    sol: str
    speedup: str
    bandwidth: str
    median_us: float | None


class RungFiguresOut(Schema):
    """One rung's figures from the GPU run of bench/ladder.py (raw values and the page's strings)."""

    verdict: str
    score_us: float | None
    sol_pct: float | None
    speedup: float | None
    score: str
    sol: str
    speedup_text: str
    shapes: list[RungShapeOut]
    kernels: list[dict[str, Any]]  # the profiler's digest of the rung's top kernels


class RungOut(Schema):
    position: int
    title: str
    step: str
    language: str
    path: str
    source: str
    editorial: str  # Markdown
    figures: RungFiguresOut | None


class LadderRunOut(Schema):
    gpu: str
    date: str
    note: str


class LadderYoursOut(Schema):
    submission: str
    gpu_model: str
    score_us: float
    score: str
    sol: str
    comparable: bool  # judged on the GPU the rungs were timed on
    standing: str


class LadderOut(Schema):
    problem: str
    opened: Literal["accepted", "gave_up"]
    opened_text: str
    intro: str  # Markdown
    run: LadderRunOut
    rungs: list[RungOut]
    yours: LadderYoursOut | None


class GiveUpIn(Schema):
    confirm: bool = False
