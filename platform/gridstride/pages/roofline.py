"""The roofline chart as inline SVG, drawn on the server (readable without JavaScript).

Log-log: arithmetic intensity (FLOP/byte) on x, throughput (FLOP/s) on y. The memory roof is
bandwidth x intensity, the compute roof is flat; their corner is the ridge point. Each point is one
benchmark shape of one run; hovering shows its numbers (SVG <title>), and the page puts the same
numbers in a table beside the chart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from gridstride.pages import units

WIDTH, HEIGHT = 600, 340
LEFT, RIGHT, TOP, BOTTOM = 96, 16, 14, 44
SERIES = {
    "submission": "this submission",
    "reference": "reference",
    "best": "best known",
    # The optimization ladder's chart (pages/ladders.py): its rungs and the viewer's best run.
    "rung": "ladder rungs",
    "yours": "your best",
}


@dataclass(frozen=True)
class Point:
    series: str  # a key of SERIES
    shape: str
    intensity: float  # FLOP per byte
    flops_per_s: float
    time_us: float
    name: str = ""  # the point's own name where its series' is not enough (a rung: "2. Shared tile")
    tag: str = ""  # a short mark drawn beside the point (a rung's number)

    @property
    def label(self) -> str:
        return self.name or SERIES.get(self.series, self.series)

    @property
    def bytes_per_s(self) -> float:
        return self.flops_per_s / self.intensity if self.intensity > 0 else 0.0

    def describe(self) -> str:
        return (
            f"{self.label} · {self.shape}: {units.duration_us(self.time_us)}, "
            f"{units.flops_rate(self.flops_per_s)}, {units.bandwidth_gbps(self.bytes_per_s / 1e9)}, "
            f"{units.sig(self.intensity, 3)} FLOP/B"
        )


@dataclass(frozen=True)
class Roofs:
    bandwidth_gbps: float | None
    peak_tflops: float | None
    compute_label: str = "compute"
    # "CPU" when the roofs are a CPU host's own (a practice run), shown in their labels.
    host: str = ""

    @property
    def memory_label(self) -> str:
        return f"{self.host} memory" if self.host else "memory"

    @property
    def ridge(self) -> float | None:
        if self.bandwidth_gbps and self.peak_tflops:
            return self.peak_tflops * 1e12 / (self.bandwidth_gbps * 1e9)
        return None


def _decades(lo: float, hi: float, minimum: int = 2) -> tuple[int, int]:
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    while b - a < minimum:
        a, b = a - 1, b + 1 if (b - a) % 2 else b
    return a, b


def _fmt_intensity(exp: int) -> str:
    return units.sig(10.0**exp, 1) if exp < 0 else f"{10**exp:,}"


def _fmt_rate(exp: int) -> str:
    """Decade ticks as 1, 10, 100 with the prefix: "10 GFLOP/s", "1 TFLOP/s"."""
    prefixes = {0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
    base = max(0, min(18, exp - exp % 3))
    return f"{10 ** (exp - base):g} {prefixes[base]}FLOP/s"


def render(points: list[Point], roofs: Roofs) -> SafeString:
    usable = [p for p in points if p.intensity > 0 and p.flops_per_s > 0]
    if not usable and not (roofs.bandwidth_gbps or roofs.peak_tflops):
        return mark_safe("")
    xs = [p.intensity for p in usable]
    ys = [p.flops_per_s for p in usable]
    ridge = roofs.ridge
    if ridge:
        xs += [ridge]
    if not xs:
        xs = [0.1, 10.0]
    x0, x1 = _decades(min(xs) / 2, max(xs) * 2)
    bw = roofs.bandwidth_gbps * 1e9 if roofs.bandwidth_gbps else None
    peak = roofs.peak_tflops * 1e12 if roofs.peak_tflops else None
    if peak:
        ys.append(peak)
    if bw:
        ys.append(bw * 10.0**x0)
    if not ys:
        ys = [1e9, 1e12]
    y0, y1 = _decades(min(ys) / 2, max(ys) * 2)
    # The memory roof can start far below the points at tiny intensities: keep the plot about them.
    if usable:
        y0 = max(y0, math.floor(math.log10(min(p.flops_per_s for p in usable))) - 2)

    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(v: float) -> float:
        return round(LEFT + (math.log10(v) - x0) / (x1 - x0) * plot_w, 1)

    def sy(v: float) -> float:
        return round(TOP + plot_h - (math.log10(v) - y0) / (y1 - y0) * plot_h, 1)

    parts: list[SafeString] = []
    # Grid and axis labels, one line per decade.
    for e in range(x0, x1 + 1):
        x = sx(10.0**e)
        parts.append(format_html('<line class="rf-grid" x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>', x, TOP, TOP + plot_h))
        parts.append(
            format_html(
                '<text class="rf-tick" x="{}" y="{}" text-anchor="middle">{}</text>',
                x,
                TOP + plot_h + 16,
                _fmt_intensity(e),
            )
        )
    for e in range(y0, y1 + 1):
        y = sy(10.0**e)
        parts.append(format_html('<line class="rf-grid" x1="{}" y1="{}" x2="{}" y2="{}"/>', LEFT, y, LEFT + plot_w, y))
        parts.append(
            format_html(
                '<text class="rf-tick" x="{}" y="{}" text-anchor="end">{}</text>',
                LEFT - 6,
                round(y + 4, 1),
                _fmt_rate(e),
            )
        )
    parts.append(
        format_html(
            '<text class="rf-axis" x="{}" y="{}" text-anchor="middle">arithmetic intensity (FLOP/byte)</text>',
            LEFT + plot_w / 2,
            HEIGHT - 6,
        )
    )
    parts.append(
        format_html(
            '<text class="rf-axis" transform="rotate(-90)" x="{}" y="14" text-anchor="middle">throughput (FLOP/s)</text>',
            -(TOP + plot_h / 2),
        )
    )

    # Roofs, clipped to the plot.
    lo_i, hi_i = 10.0**x0, 10.0**x1
    lo_y, hi_y = 10.0**y0, 10.0**y1
    if bw:
        start = max(lo_i, lo_y / bw)
        end = min(ridge or hi_i, hi_i, hi_y / bw)
        if end > start:
            parts.append(
                format_html(
                    '<line class="rf-roof" x1="{}" y1="{}" x2="{}" y2="{}"><title>{} roof: {}</title></line>',
                    sx(start),
                    sy(bw * start),
                    sx(end),
                    sy(bw * end),
                    roofs.memory_label,
                    units.bandwidth_gbps(roofs.bandwidth_gbps),
                )
            )
            parts.append(
                format_html(
                    '<text class="rf-roof-label" x="{}" y="{}">{} {}</text>',
                    round(sx(start) + 6, 1),
                    round(sy(bw * start) - 6, 1),
                    roofs.memory_label,
                    units.bandwidth_gbps(roofs.bandwidth_gbps),
                )
            )
    if peak and lo_y <= peak <= hi_y:
        start = max(ridge or lo_i, lo_i)
        parts.append(
            format_html(
                '<line class="rf-roof" x1="{}" y1="{}" x2="{}" y2="{}"><title>{} roof: {}</title></line>',
                sx(start),
                sy(peak),
                sx(hi_i),
                sy(peak),
                roofs.compute_label,
                units.flops_rate(peak),
            )
        )
        parts.append(
            format_html(
                '<text class="rf-roof-label" x="{}" y="{}" text-anchor="end">{} {}</text>',
                round(sx(hi_i) - 4, 1),
                round(sy(peak) - 6, 1),
                roofs.compute_label,
                units.flops_rate(peak),
            )
        )

    # Points: circles for this submission (and the viewer's best), squares for the reference,
    # diamonds for the best known, triangles for ladder rungs.
    for p in usable:
        x, y = sx(p.intensity), sy(p.flops_per_s)
        if p.series == "reference":
            shape = format_html('<rect x="{}" y="{}" width="9" height="9"/>', round(x - 4.5, 1), round(y - 4.5, 1))
        elif p.series == "best":
            shape = format_html('<path d="M{} {} l6 6 l-6 6 l-6 -6 z"/>', x, round(y - 6, 1))
        elif p.series == "rung":
            shape = format_html('<path d="M{} {} l6 10 l-12 0 z"/>', x, round(y - 6, 1))
        else:
            shape = format_html('<circle cx="{}" cy="{}" r="5"/>', x, y)
        parts.append(
            format_html('<g class="rf-point rf-{}" tabindex="0"><title>{}</title>{}</g>', p.series, p.describe(), shape)
        )

    parts += _shape_labels([p for p in usable if p.series == "submission"], sx, sy)
    parts += _tags([p for p in usable if p.tag], sx, sy)

    shown = [(key, label) for key, label in SERIES.items() if any(p.series == key for p in usable)]
    legend = format_html_join(
        "",
        '<g class="rf-legend rf-{0}" transform="translate({1},{2})">{3}<text x="12" y="4">{4}</text></g>',
        ((key, LEFT + 10 + i * 130, TOP + 12, _legend_mark(key), label) for i, (key, label) in enumerate(shown)),
    )
    title = "Roofline: throughput against arithmetic intensity"
    return format_html(
        '<svg class="roofline" viewBox="0 0 {} {}" role="img" aria-label="{}"><title>{}</title>{}{}</svg>',
        WIDTH,
        HEIGHT,
        title,
        title,
        mark_safe("".join(parts)),  # built from format_html pieces above
        legend,
    )


# Labels closer than this (px) would overlap: the lower one moves down.
LABEL_GAP = 13


def _shape_labels(points: list[Point], sx: Any, sy: Any) -> list[SafeString]:
    """Each of this submission's points labelled with its shape, beside it; labels of points that
    nearly coincide are stacked instead of printed over each other."""
    placed: list[tuple[float, float]] = []
    labels = []
    for p in sorted(points, key=lambda p: -p.flops_per_s):
        x, y = sx(p.intensity) + 9, sy(p.flops_per_s) + 4
        for px, py in placed:
            if abs(px - x) < 120 and abs(py - y) < LABEL_GAP:
                y = py + LABEL_GAP
        placed.append((x, y))
        anchor = "start"
        if x > WIDTH - RIGHT - 110:  # near the right edge: to the left of the point
            x, anchor = x - 18, "end"
        labels.append(
            format_html(
                '<text class="rf-label" x="{}" y="{}" text-anchor="{}">{}</text>',
                round(x, 1),
                round(y, 1),
                anchor,
                p.shape,
            )
        )
    return labels


def _tags(points: list[Point], sx: Any, sy: Any) -> list[SafeString]:
    """Each tagged point's tag (a rung's number) just above its right; a tag that would land on
    one already drawn moves up a line, so points of one rung that nearly coincide stay legible."""
    placed: list[tuple[float, float]] = []
    tags = []
    for p in points:
        x, y = sx(p.intensity) + 7, sy(p.flops_per_s) - 5
        while any(abs(px - x) < 10 and abs(py - y) < 11 for px, py in placed):
            y -= 11
        placed.append((x, y))
        tags.append(format_html('<text class="rf-tag" x="{}" y="{}">{}</text>', round(x, 1), round(y, 1), p.tag))
    return tags


def _legend_mark(series: str) -> SafeString:
    if series == "reference":
        return mark_safe('<rect x="-4" y="-4" width="8" height="8"/>')
    if series == "best":
        return mark_safe('<path d="M0 -5 l5 5 l-5 5 l-5 -5 z"/>')
    if series == "rung":
        return mark_safe('<path d="M0 -5 l5 9 l-10 0 z"/>')
    return mark_safe('<circle r="4.5"/>')
