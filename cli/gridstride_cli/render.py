"""Terminal output: numbers with units, the live stage line, a submission's report, a board."""

from __future__ import annotations

import math
from typing import Any, TextIO


def sig(value: float, digits: int = 4) -> str:
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def us(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1000:
        return f"{sig(value)} us"
    if value < 1_000_000:
        return f"{sig(value / 1000)} ms"
    return f"{sig(value / 1e6)} s"


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} %"


def gbps(value: float | None) -> str:
    return "-" if value is None else f"{sig(value, 3)} GB/s"


def tflops(value: float | None) -> str:
    """A rate given in TFLOP/s, shown with the prefix that keeps it readable."""
    if value is None:
        return "-"
    for scale, unit in ((1.0, "TFLOP/s"), (1e-3, "GFLOP/s"), (1e-6, "MFLOP/s")):
        if value >= scale:
            return f"{sig(value / scale, 3)} {unit}"
    return f"{sig(value * 1e12, 3)} FLOP/s"


def factor(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def table(rows: list[list[str]], header: list[str], right: set[int], out: TextIO) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            str(c).rjust(w) if i in right else str(c).ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    out.write(line(header).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in rows:
        out.write(line(r).rstrip() + "\n")


def stage_line(status: dict[str, Any]) -> str:
    text = status["verdict_text"] if status.get("final") else status.get("stage", status.get("status", ""))
    return f"[{status.get('elapsed_s', 0.0):6.1f} s] {text}"


def report(status: dict[str, Any], server: str, out: TextIO) -> None:
    rep = status.get("report") or {}
    verdict = status.get("verdict_text") or status.get("verdict")
    ranked = (
        ""
        if status.get("ranked")
        else "  (unranked" + (": CPU interpreter)" if status.get("gpu_model") == "cpu" else ")")
    )
    out.write(f"\n{verdict}{ranked}\n")
    if rep.get("message"):
        out.write(f"{rep['message']}\n")
    cases = rep.get("cases") or []
    if cases:
        passed = sum(1 for c in cases if c.get("passed"))
        out.write(f"cases: {passed}/{len(cases)} passed\n")
        failing = next((c for c in cases if not c.get("passed")), None)
        if failing:
            sizes = " ".join(f"{k}={v}" for k, v in (failing.get("sizes") or {}).items())
            out.write(f"first failing case: {failing.get('name')} ({sizes})")
            if failing.get("mismatch_count"):
                out.write(f": {failing['mismatch_count']} elements out of tolerance")
            out.write("\n")
            if failing.get("message"):
                out.write(f"  {failing['message']}\n")
            mism = failing.get("mismatches") or []
            if mism:
                rows = [
                    [
                        str(m.get("index")),
                        _num(m.get("expected")),
                        _num(m.get("got")),
                        _num(m.get("abs_err")),
                        _num(m.get("rel_err")),
                    ]
                    for m in mism[:10]
                ]
                table(rows, ["index", "expected", "got", "abs err", "rel err"], {0, 1, 2, 3, 4}, out)
    shapes = rep.get("benchmarks") or []
    if shapes:
        rows = []
        for b in shapes:
            half = (b.get("ci_high_us", 0) - b.get("ci_low_us", 0)) / 2
            rows.append(
                [
                    b.get("name", ""),
                    us(b.get("median_us")),
                    f"+-{half / b['median_us'] * 100:.2f} %" if b.get("median_us") else "-",
                    gbps(b.get("gbps")),
                    tflops(b.get("tflops")),
                    pct(b.get("sol_pct")),
                    factor(b.get("speedup_vs_reference")),
                ]
            )
        out.write("\n")
        table(rows, ["shape", "median", "95% CI", "bandwidth", "compute", "% SOL", "vs ref"], {1, 2, 3, 4, 5, 6}, out)
    if status.get("score_us") is not None:
        out.write(f"\nscore {us(status['score_us'])}   {pct(status.get('sol_pct'))} of speed of light\n")
    for key, title in (("compile_log", "compiler output"), ("stdout", "stdout"), ("stderr", "stderr")):
        if rep.get(key):
            out.write(f"\n--- {title} ---\n{rep[key].rstrip()}\n")
    out.write(f"\n{server}{status.get('url', '')}\n")


def _num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def board(data: dict[str, Any], out: TextIO) -> None:
    title = f"{data['problem']} on {data['gpu']}, {data.get('language') or 'all languages'}"
    if not data.get("ranked"):
        title += " - unranked practice runs (CPU interpreter)"
    out.write(f"{title}: {data['total']} entries\n")
    entries = list(data.get("entries") or [])
    viewer = data.get("viewer")
    if viewer and not any(e.get("is_viewer") for e in entries):
        entries.append(viewer)
    rows = [
        [
            f"{e['rank']}{'=' if e.get('tied') else ''}",
            e["user"] + (" (you)" if e.get("is_viewer") else ""),
            us(e.get("score_us")),
            pct(e.get("sol_pct")),
            factor(e.get("speedup")),
            e.get("language", ""),
        ]
        for e in entries
    ]
    if rows:
        table(rows, ["rank", "user", "score", "% SOL", "vs ref", "language"], {0, 2, 3, 4}, out)
    if any(e.get("tied") for e in entries):
        out.write("= tied: the confidence intervals overlap\n")
