from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from gridstride.catalog.models import Problem
from gridstride.catalog.views import LANGUAGE_NAMES, gpu_choices
from gridstride.leaderboards import queries


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
    problem = get_object_or_404(Problem.objects.select_related("current_version"), slug=slug, is_active=True)
    gpu, language, window, gpus = board_params(request, problem)
    result = queries.build_board(problem, gpu, language, window, viewer=request.user, limit=queries.DEFAULT_LIMIT)
    result.gpu_models = gpus
    context = {
        "problem": problem,
        "board": result,
        "languages": [(lang, LANGUAGE_NAMES.get(lang, lang)) for lang in problem.languages],
        "language_names": LANGUAGE_NAMES,
        "windows": [("all", "all time"), ("30d", "30 days"), ("7d", "7 days")],
    }
    return render(request, "leaderboards/board.html", context)


def index(request: HttpRequest) -> HttpResponse:
    problems = Problem.objects.filter(is_active=True).only("slug", "title", "track", "order").order_by("track", "order")
    return render(request, "leaderboards/index.html", {"problems": problems})
