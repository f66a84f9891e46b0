from __future__ import annotations

import re
from itertools import groupby
from typing import Any

from django.conf import settings
from django.db.models import F, Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from gridstride.accounts.queries import problem_stats
from gridstride.catalog.models import Problem, ProblemVersion
from gridstride.leaderboards.models import ALL_LANGUAGES, BestRun
from gridstride.lib.markdown import render_markdown
from gridstride.pages.hardware import REFERENCE_GPU
from gridstride.submissions.models import Language, Submission
from judge.spec import DIFFICULTIES, TRACK_TITLES, TRACKS, evaluate

LANGUAGE_NAMES = dict(Language.choices)


def gpu_choices() -> list[str]:
    """GPU models a candidate may pick: the default queue first, then any others configured."""
    default = settings.JUDGE_DEFAULT_GPU
    others = [g for g in getattr(settings, "JUDGE_GPU_MODELS", []) if g != default]
    return [default, *others]


def best_sol_by_problem() -> dict[int, float]:
    """Best % of speed of light per problem among ranked entries of its current ranking (one query)."""
    rows = (
        BestRun.objects.filter(
            ranked=True,
            language=ALL_LANGUAGES,
            problem__is_active=True,
            problem__is_hidden=False,
            ranking_hash=F("problem__current_version__ranking_hash"),
        )
        .order_by()
        .values("problem_id")
        .annotate(best=Max("sol_pct"))
    )
    return {r["problem_id"]: r["best"] for r in rows}


def problem_list(request: HttpRequest) -> HttpResponse:
    problems = list(
        Problem.objects.public()
        .only("slug", "title", "track", "difficulty", "order", "tags", "languages")
        .order_by("order", "slug")
    )
    best = best_sol_by_problem()
    stats = problem_stats(request.user) if request.user.is_authenticated else {}
    by_track: dict[str, list[Problem]] = {track: [] for track in TRACKS}
    for p in problems:
        p.best_sol = best.get(p.pk)  # type: ignore[attr-defined]
        s = stats.get(p.pk)
        p.mark = "solved" if s and s["solved"] else "attempted" if s else ""  # type: ignore[attr-defined]
        by_track.setdefault(p.track, []).append(p)
    tracks = []
    for track in TRACKS:
        ordered = sorted(by_track[track], key=lambda p: (DIFFICULTIES.index(p.difficulty), p.order, p.slug))
        groups = [(d, list(ps)) for d, ps in groupby(ordered, key=lambda p: p.difficulty)]
        tracks.append(
            {
                "slug": track,
                "title": TRACK_TITLES[track],
                "groups": groups,
                "count": len(ordered),
                "solved": sum(1 for p in ordered if getattr(p, "mark", "") == "solved"),
            }
        )
    return render(request, "catalog/problem_list.html", {"tracks": tracks, "problem_count": len(problems)})


def _benchmark_rows(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The ranked shapes with their bytes and FLOPs and the reference GPU's speed-of-light time."""
    cost = spec.get("cost") or {}
    roof = cost.get("compute_roof", "fp32")
    rows = []
    for case in spec.get("benchmarks", []):
        try:
            flops = evaluate(cost.get("flops", "0"), case["sizes"])
            nbytes = evaluate(cost.get("bytes", "0"), case["sizes"])
        except (ValueError, KeyError, ZeroDivisionError):
            flops = nbytes = 0.0
        rows.append(
            {
                "name": case["name"],
                "sizes": case["sizes"],
                "flops": flops,
                "bytes": nbytes,
                "intensity": flops / nbytes if nbytes else None,
                "floor_us": REFERENCE_GPU.floor_us(flops, nbytes, roof),
                "bound": REFERENCE_GPU.bound(flops, nbytes, roof),
            }
        )
    return rows


# Rendered statements, keyed by the text itself: Markdown + sanitizing cost ~5 ms a page view and
# a statement rarely changes (hashing it costs microseconds).
_STATEMENTS: dict[tuple[int, int], dict[str, str]] = {}


# Statement sections the page shows once, beside the tables generated from problem.toml.
MERGED_SECTIONS = ("Interface", "Benchmarks")
_HEADING = re.compile(r"^## +(.+?)\s*$", re.M)


def split_statement(text: str) -> dict[str, str]:
    """The statement's Markdown cut at its level-2 headings: "intro" (the part before the first), one
    entry per merged section (its prose, without the heading), and "rest" (every other section,
    headings kept, in their order)."""
    parts = {"intro": "", "rest": "", **{name: "" for name in MERGED_SECTIONS}}
    matches = list(_HEADING.finditer(text))
    parts["intro"] = text[: matches[0].start()] if matches else text
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        title = m.group(1).strip()
        if title in MERGED_SECTIONS:
            parts[title] += text[m.end() : end]
        else:
            parts["rest"] += text[m.start() : end]
    return parts


def statement_html(version: ProblemVersion) -> dict[str, str]:
    """The statement's sections as sanitized HTML (keys as split_statement's)."""
    key = (version.pk, hash(version.statement))
    html = _STATEMENTS.get(key)
    if html is None:
        if len(_STATEMENTS) > 256:
            _STATEMENTS.clear()
        html = _STATEMENTS[key] = {
            name: render_markdown(part) if part.strip() else ""
            for name, part in split_statement(version.statement).items()
        }
    return html


def problem_detail(request: HttpRequest, slug: str) -> HttpResponse:
    problem = get_object_or_404(Problem.objects.public().select_related("current_version"), slug=slug)
    version = problem.current_version
    spec = version.spec if version else {}
    starters = version.starters if version else {}
    languages = [lang for lang in problem.languages if lang in starters] or list(starters)
    recent: list[Submission] = []
    if request.user.is_authenticated:
        recent = list(
            Submission.objects.filter(owner=request.user, problem=problem)
            .only(
                "public_id", "language", "mode", "status", "verdict", "score_us", "sol_pct", "created_at", "gpu_model"
            )
            .order_by("-created_at")[:8]
        )
    # Everything the editor needs, as one JSON blob read by problem.js (json_script escapes it).
    workspace = {
        "slug": problem.slug,
        "languages": [{"id": lang, "name": LANGUAGE_NAMES.get(lang, lang)} for lang in languages],
        "starters": starters,
        "submitUrl": reverse("submissions:create"),
        "loginUrl": f"{reverse('accounts:login')}?next={request.path}",
        "authenticated": request.user.is_authenticated,
        "gpus": gpu_choices(),
    }
    context = {
        "problem": problem,
        "version": version,
        "spec": spec,
        "statement": statement_html(version) if version else {},
        "starters": starters,
        "languages": workspace["languages"],
        "gpus": workspace["gpus"],
        "benchmarks": _benchmark_rows(spec),
        "workspace": workspace,
        "recent": recent,
        "tolerance": spec.get("tolerance") or {},
        "reference_gpu": REFERENCE_GPU,
        "compute_roof": (spec.get("cost") or {}).get("compute_roof", "fp32"),
        # New submissions go to the judge.cpu queue: say what practice there can and cannot tell.
        "cpu_host": settings.JUDGE_DEFAULT_GPU == "cpu",
    }
    return render(request, "catalog/problem_detail.html", context)
