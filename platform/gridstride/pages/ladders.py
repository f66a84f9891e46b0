"""An opened optimization ladder shaped for the problem page and the API.

Only called once catalog/ladder_access.py has said the ladder is open to the viewer. The rungs'
figures are bench/ladder.py's (figures.json, one GPU run); the viewer's own best run is drawn
among them on the same roofline chart as a report's (pages/roofline.py), when it ran on that GPU.
Every figure is formatted by pages/units.py, and the API carries the same strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from gridstride.catalog.ladder_access import OPENED_BY_ACCEPTED
from gridstride.catalog.models import Ladder, LadderRung, Problem
from gridstride.leaderboards.scoring import geomean
from gridstride.lib.markdown import render_markdown
from gridstride.pages import reports, roofline, units
from gridstride.submissions.models import Context, Language, Mode, Status, Submission, Verdict
from judge.spec import evaluate

LANGUAGE_NAMES = dict(Language.choices)


@dataclass
class RungView:
    position: int
    title: str
    step: str
    language: str
    language_name: str
    path: str
    source: str
    lines: int
    editorial: str  # Markdown
    editorial_html: SafeString
    has_figures: bool
    verdict: str  # the GPU run's verdict of this rung ("" without figures)
    score_us: float | None
    sol_pct: float | None
    speedup: float | None
    shapes: list[dict[str, Any]]  # name, median_us, sol_pct, speedup_vs_reference, gbps, tflops
    kernels: list[dict[str, Any]]  # the profiler's digest of its top kernels


@dataclass
class BestRun:
    public_id: str
    url: str
    language_name: str
    gpu_model: str
    score_us: float
    sol_pct: float | None
    speedup: float | None
    created_at: datetime
    comparable: bool  # judged on the GPU the rungs' figures come from
    standing: str  # where it sits among the rungs, in words


@dataclass
class StandingRow:
    label: str
    score_us: float | None
    sol_pct: float | None
    speedup: float | None
    mine: bool = False
    anchor: str = ""


@dataclass
class LadderView:
    slug: str
    opened: str  # ladder_access.OPENED_BY_*
    opened_text: str
    intro: str  # Markdown
    intro_html: SafeString
    rungs: list[RungView]
    run_gpu: str  # the GPU of the figures' run ("" before any)
    run_date: str
    run_note: str
    yours: BestRun | None
    standings: list[StandingRow] = field(default_factory=list)
    chart: SafeString = field(default_factory=lambda: mark_safe(""))
    chart_points: list[roofline.Point] = field(default_factory=list)


def build(problem: Problem, ladder: Ladder, user: Any, opened: str) -> LadderView:
    run = ladder.run or {}
    system = run.get("system") or {}
    run_gpu = str(system.get("gpu") or "")
    spec = problem.current_version.spec if problem.current_version else {}
    rungs = [_rung(r) for r in ladder.rungs.all()]
    best = _best_run(problem, user, run_gpu)
    view = LadderView(
        slug=problem.slug,
        opened=opened,
        opened_text=_opened_text(opened),
        intro=ladder.intro,
        intro_html=mark_safe(render_markdown(ladder.intro)) if ladder.intro.strip() else mark_safe(""),
        rungs=rungs,
        run_gpu=run_gpu,
        run_date=str(run.get("date") or ""),
        run_note=_run_note(run, run_gpu),
        yours=None,
    )
    if best is not None:
        view.yours = _best_view(best, run_gpu, rungs)
    view.standings = _standings(rungs, view.yours)
    # Drawn only among rungs with figures: a run of other hardware is never placed beside them.
    comparable = best if view.yours and view.yours.comparable else None
    view.chart_points = _chart_points(spec, rungs, comparable)
    if any(p.series == "rung" for p in view.chart_points):
        compute_roof = (spec.get("cost") or {}).get("compute_roof", "fp32")
        roofs = reports.roofs(run.get("ceilings") or {}, system, "", compute_roof)
        view.chart = roofline.render(view.chart_points, roofs)
    else:
        view.chart_points = []
    return view


def _opened_text(opened: str) -> str:
    if opened == OPENED_BY_ACCEPTED:
        return "Open to you because you have an accepted submission on this problem."
    return "Open to you because you chose to see it before solving the problem."


def _run_note(run: dict[str, Any], gpu: str) -> str:
    if not run:
        return "No GPU run of this ladder yet: its figures appear once bench/ladder.py has judged every rung on the GPU host."
    timing = " (short timing)" if run.get("quick") else ""
    date = f" on {run['date']}" if run.get("date") else ""
    return f"Figures: every rung judged by the judge itself in {run.get('mode') or 'benchmark'} mode on {gpu or 'a GPU'}{date}{timing} (bench/ladder.py)."


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else None


def _rung(r: LadderRung) -> RungView:
    fig = r.figures or {}
    shapes = [
        {
            "name": str(s.get("name", "")),
            "median_us": _number(s.get("median_us")),
            "sol_pct": _number(s.get("sol_pct")),
            "speedup": _number(s.get("speedup_vs_reference")),
            "gbps": _number(s.get("gbps")),
            "tflops": _number(s.get("tflops")),
        }
        for s in fig.get("shapes") or []
        if isinstance(s, dict)
    ]
    return RungView(
        position=r.position,
        title=r.title,
        step=r.step,
        language=r.language,
        language_name=LANGUAGE_NAMES.get(r.language, r.language),
        path=r.path,
        source=r.source,
        lines=len(r.source.splitlines()),
        editorial=r.editorial,
        editorial_html=mark_safe(render_markdown(r.editorial)),  # sanitized by nh3
        has_figures=bool(fig),
        verdict=str(fig.get("verdict") or ""),
        score_us=_number(fig.get("score_us")),
        sol_pct=_number(fig.get("sol_pct")),
        speedup=_number(fig.get("speedup_vs_reference")),
        shapes=shapes,
        kernels=[k for k in fig.get("kernels") or [] if isinstance(k, dict)],
    )


def _same_gpu(gpu_model: str, run_gpu: str) -> bool:
    """A submission's queue name ("h200") against the figures' GPU name ("NVIDIA H200")."""
    return bool(gpu_model) and gpu_model != "cpu" and gpu_model.lower() in run_gpu.lower().replace(" ", "")


def _best_run(problem: Problem, user: Any, run_gpu: str) -> Submission | None:
    """The viewer's fastest fully judged practice run of the problem: on the figures' GPU when they
    have one there, else their fastest anywhere (shown, but not drawn against other hardware)."""
    runs = Submission.objects.filter(
        owner_id=user.pk,
        problem=problem,
        context=Context.PRACTICE,
        mode=Mode.SUBMIT,
        status=Status.DONE,
        verdict=Verdict.ACCEPTED,
        score_us__isnull=False,
    )
    # Small rows first (the reports can be large); only the chosen run's report is read.
    ranked = list(runs.order_by("score_us").values_list("pk", "gpu_model")[:200])
    if not ranked:
        return None
    pk = next((pk for pk, gpu in ranked if _same_gpu(gpu, run_gpu)), ranked[0][0])
    return (
        runs.filter(pk=pk)
        .only("public_id", "language", "gpu_model", "score_us", "sol_pct", "created_at", "report")
        .first()
    )


def _best_view(s: Submission, run_gpu: str, rungs: list[RungView]) -> BestRun:
    speedups = [b.get("speedup_vs_reference") for b in (s.report or {}).get("benchmarks") or []]
    comparable = _same_gpu(s.gpu_model, run_gpu)
    score = float(s.score_us or 0.0)
    return BestRun(
        public_id=str(s.public_id),
        url=reverse("submissions:detail", args=[s.public_id]),
        language_name=LANGUAGE_NAMES.get(s.language, s.language),
        gpu_model=s.gpu_model,
        score_us=score,
        sol_pct=s.sol_pct,
        speedup=geomean(speedups) if speedups else None,
        created_at=s.created_at,
        comparable=comparable,
        standing=_standing(score, s.gpu_model, rungs) if comparable else _elsewhere(s.gpu_model, run_gpu),
    )


def _elsewhere(gpu_model: str, run_gpu: str) -> str:
    where = "the CPU host" if gpu_model == "cpu" else gpu_model.upper()
    if not run_gpu:
        return f"Judged on {where}; the rungs have no GPU figures yet to compare it with."
    return f"Judged on {where}, not on the {run_gpu} the rungs were timed on, so it is not drawn among them."


def _standing(score: float, gpu_model: str, rungs: list[RungView]) -> str:
    timed = [r for r in rungs if r.score_us]
    if not timed:
        return "The rungs have no GPU figures yet to compare it with."
    slower = [r for r in timed if r.score_us and r.score_us > score]
    faster = [r for r in timed if r.score_us and r.score_us <= score]
    mine = f"Your best, {units.duration_us(score)} on the {gpu_model.upper()},"
    if not faster:
        return f"{mine} is faster than every rung of the ladder."
    if not slower:
        top = min(faster, key=lambda r: r.score_us or 0.0)
        return f"{mine} is slower than every rung; the fastest, {_name(top)}, takes {units.duration_us(top.score_us)}."
    above = max(faster, key=lambda r: r.score_us or 0.0)  # the slowest rung that beats it
    below = min(slower, key=lambda r: r.score_us or 0.0)  # the fastest rung it beats
    return (
        f"{mine} is faster than {units.plural(len(slower), 'rung')} of {len(timed)}: it sits between "
        f"{_name(below)} ({units.duration_us(below.score_us)}), and {_name(above)} ({units.duration_us(above.score_us)})."
    )


def _name(r: RungView) -> str:
    return f"rung {r.position}, {r.title}"


def _standings(rungs: list[RungView], yours: BestRun | None) -> list[StandingRow]:
    """The rungs with GPU figures, slowest first, and the viewer's comparable best among them."""
    rows = [
        StandingRow(f"{r.position}. {r.title}", r.score_us, r.sol_pct, r.speedup, anchor=f"rung-{r.position}")
        for r in rungs
        if r.score_us
    ]
    if rows and yours and yours.comparable:
        rows.append(StandingRow("Your best", yours.score_us, yours.sol_pct, yours.speedup, mine=True))
    return sorted(rows, key=lambda row: -(row.score_us or 0.0))


def _shape_costs(spec: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """FLOPs and bytes of each benchmark shape, from problem.toml's cost formulas."""
    cost = spec.get("cost") or {}
    out = {}
    for case in spec.get("benchmarks") or []:
        try:
            out[case["name"]] = (
                evaluate(cost.get("flops", "0"), case["sizes"]),
                evaluate(cost.get("bytes", "0"), case["sizes"]),
            )
        except (ValueError, KeyError, TypeError, ZeroDivisionError):
            continue
    return out


def _chart_points(spec: dict[str, Any], rungs: list[RungView], best: Submission | None) -> list[roofline.Point]:
    """One point per rung and shape (a triangle tagged with the rung's number), then the viewer's
    best run's shapes on top. A problem that does no arithmetic (a transpose) has no point: its
    intensity is zero, off a log axis, as on its reports."""
    costs = _shape_costs(spec)
    points = []
    for r in rungs:
        for s in r.shapes:
            flops, nbytes = costs.get(s["name"], (0.0, 0.0))
            if flops and nbytes and s["median_us"]:
                points.append(
                    roofline.Point(
                        series="rung",
                        shape=s["name"],
                        intensity=flops / nbytes,
                        flops_per_s=flops / (s["median_us"] * 1e-6),
                        time_us=s["median_us"],
                        name=f"{r.position}. {r.title}",
                        tag=str(r.position),
                    )
                )
    if best is not None:
        for b in (best.report or {}).get("benchmarks") or []:
            work, moved, time_us = _number(b.get("flops")), _number(b.get("bytes")), _number(b.get("median_us"))
            if work and moved and time_us:
                points.append(
                    roofline.Point("yours", str(b.get("name", "")), work / moved, work / (time_us * 1e-6), time_us)
                )
    return points


def as_api(view: LadderView) -> dict[str, Any]:
    """The ladder for the API: raw values and the strings the page shows (the CLI formats nothing)."""
    yours = view.yours
    return {
        "problem": view.slug,
        "opened": view.opened,
        "opened_text": view.opened_text,
        "intro": view.intro,
        "run": {"gpu": view.run_gpu, "date": view.run_date, "note": view.run_note},
        "rungs": [
            {
                "position": r.position,
                "title": r.title,
                "step": r.step,
                "language": r.language,
                "path": r.path,
                "source": r.source,
                "editorial": r.editorial,
                "figures": {
                    "verdict": r.verdict,
                    "score_us": r.score_us,
                    "sol_pct": r.sol_pct,
                    "speedup": r.speedup,
                    "score": units.duration_us(r.score_us),
                    "sol": units.percent(r.sol_pct),
                    "speedup_text": units.factor(r.speedup),
                    "shapes": [
                        {
                            "name": s["name"],
                            "median": units.duration_us(s["median_us"]),
                            "sol": units.percent(s["sol_pct"]),
                            "speedup": units.factor(s["speedup"]),
                            "bandwidth": units.bandwidth_gbps(s["gbps"]),
                            "median_us": s["median_us"],
                        }
                        for s in r.shapes
                    ],
                    "kernels": r.kernels,
                }
                if r.has_figures
                else None,
            }
            for r in view.rungs
        ],
        "yours": {
            "submission": yours.public_id,
            "gpu_model": yours.gpu_model,
            "score_us": yours.score_us,
            "score": units.duration_us(yours.score_us),
            "sol": units.percent(yours.sol_pct),
            "comparable": yours.comparable,
            "standing": yours.standing,
        }
        if yours
        else None,
    }
