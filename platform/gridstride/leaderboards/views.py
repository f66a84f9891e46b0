from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from gridstride.catalog.models import Problem
from gridstride.catalog.ordering import in_learning_order
from gridstride.catalog.views import LANGUAGE_NAMES, gpu_choices
from gridstride.leaderboards import queries
from gridstride.leaderboards.scoring import TIE_MIN_SAMPLES
from gridstride.pages import units

# Entries per page: the leaders and the viewer's own row (always shown) fit one screen or two.
PAGE = 50


def present(entries: list[queries.Entry]) -> list[dict[str, Any]]:
    """Rows with their text already formatted: a board renders 50 rows, and per-row template
    filters and {% url %} tags cost more than the query (measured, docs/benchmarks.md)."""
    profile = reverse("accounts:profile", args=["USER"])
    detail = reverse("submissions:detail", args=["00000000-0000-0000-0000-000000000000"])
    rows = []
    for e in entries:
        rows.append(
            {
                "rank": e.rank,
                "tied": e.tied,
                "username": e.username,
                "profile_url": profile.replace("USER", quote(e.username)),
                "submission_url": detail.replace("00000000-0000-0000-0000-000000000000", str(e.public_id))
                if e.is_public or e.is_viewer
                else "",
                "is_viewer": e.is_viewer,
                "score": units.duration_us(e.score_us),
                "interval": f"{units.duration_us(e.score_low_us)} \u2013 {units.duration_us(e.score_high_us)}"
                if e.score_low_us and e.score_high_us
                else "—",
                "sol": units.percent(e.sol_pct),
                "sol_width": f"{max(0.0, min(100.0, e.sol_pct)):.1f}" if e.sol_pct is not None else "0",
                "speedup": units.factor(e.speedup),
                "language": LANGUAGE_NAMES.get(e.language, e.language),
                "date": e.created_at.strftime("%Y-%m-%d"),
                "iso": e.created_at.isoformat(),
            }
        )
    return rows


_ROW = (
    '<tr{}>{}<td><a href="{}">{}</a>{}</td><td class="num">{}</td>'
    '<td class="num small muted">{}</td><td class="num"><span class="sol"><span>{}</span>'
    '<span class="track" aria-hidden="true"><span class="fill" style="width: {}%"></span></span></span></td>'
    '<td class="num">{}</td><td>{}</td><td><time datetime="{}">{}</time></td></tr>'
)


_TIE = mark_safe('<span class="tie" title="tied: the confidence intervals overlap">=</span>')


def _rank_cell(r: dict[str, Any], ranked: bool) -> SafeString:
    """The rank cell; an unranked board (CPU practice runs) has no rank column at all."""
    if not ranked:
        return mark_safe("")
    return format_html('<td class="num">{}{}</td>', r["rank"], _TIE if r["tied"] else "")


def rows_html(rows: list[dict[str, Any]], ranked: bool = True) -> SafeString:
    """The table rows, built with format_html (every value escaped): four times faster than the
    same markup through the template engine, which dominated a board's CPU time."""
    return format_html_join(
        "\n",
        _ROW,
        (
            (
                mark_safe(' class="mine" data-testid="my-row" aria-current="true"') if r["is_viewer"] else "",
                _rank_cell(r, ranked),
                r["profile_url"],
                r["username"],
                mark_safe(' <span class="muted small">(you)</span>') if r["is_viewer"] else "",
                format_html('<a href="{}">{}</a>', r["submission_url"], r["score"])
                if r["submission_url"]
                else r["score"],
                r["interval"],
                r["sol"],
                r["sol_width"],
                r["speedup"],
                r["language"],
                r["iso"],
                r["date"],
            )
            for r in rows
        ),
    )


def board_params(request: HttpRequest, problem: Problem) -> tuple[str, str | None, str, list[str]]:
    """(gpu, language or None for all, window, gpu choices) from the query string, validated."""
    gpus = queries.gpu_models_for(problem)
    for g in gpu_choices():
        if g not in gpus:
            gpus.append(g)
    gpus.sort(key=lambda g: (g == queries.CPU_MODEL, g))
    gpu = request.GET.get("gpu") or (gpus[0] if gpus else queries.CPU_MODEL)
    if gpu not in gpus:
        gpus.append(gpu)  # an unknown GPU shows an empty board, not an error
    language = request.GET.get("language") or None
    if language not in problem.languages:
        language = None
    window = request.GET.get("window", "all")
    if window not in queries.WINDOWS:
        window = "all"
    return gpu, language, window, gpus


def board(request: HttpRequest, slug: str) -> HttpResponse:
    # Only the ranking hash of the version: not its statement, spec and starters.
    problems = (
        Problem.objects.public()
        .select_related("current_version")
        .defer("current_version__statement", "current_version__spec", "current_version__starters")
    )
    problem = get_object_or_404(problems, slug=slug)
    gpu, language, window, gpus = board_params(request, problem)
    result = queries.build_board(problem, gpu, language, window, viewer=request.user, limit=PAGE)
    result.gpu_models = gpus
    context = {
        "problem": problem,
        "board": result,
        "rows": rows_html(present(result.entries), result.ranked),
        "viewer_row": rows_html(present([result.viewer_entry]), result.ranked) if result.viewer_entry else "",
        "any_tied": any(e.tied for e in result.entries),
        "tie_min_samples": TIE_MIN_SAMPLES,
        "languages": [(lang, LANGUAGE_NAMES.get(lang, lang)) for lang in problem.languages],
        "language_names": LANGUAGE_NAMES,
        "windows": [("all", "all time"), ("30d", "30 days"), ("7d", "7 days")],
    }
    return render(request, "leaderboards/board.html", context)


def index(request: HttpRequest) -> HttpResponse:
    problems = Problem.objects.public().only("slug", "title", "track", "difficulty", "order")
    return render(request, "leaderboards/index.html", {"problems": in_learning_order(problems)})
