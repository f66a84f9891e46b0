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


class SubmissionOut(StatusOut):
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
    entries: list[EntryOut]
    viewer: EntryOut | None


class MeOut(Schema):
    username: str
    email: str
