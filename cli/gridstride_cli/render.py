"""Terminal output: the live stage line, a submission's report, a board, tables.

Every figure printed here is a string the API already formatted (the site's one formatter):
the CLI shows the same numbers as the submission's page and never computes or rounds one.
"""

from __future__ import annotations

from typing import Any, TextIO

DASH = "-"


def plural(n: int, singular: str, many: str | None = None) -> str:
    return f"{n} {singular if n == 1 else many or singular + 's'}"


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


def _failures(fig: dict[str, Any], out: TextIO) -> None:
    failures = fig.get("failures") or []
    for i, f in enumerate(failures):
        title = "failing case" if fig.get("failures_total", 0) <= 1 else f"failing case {i + 1}/{len(failures)}"
        line = f"\n{title}: {f['name']} ({f['sizes']})"
        if f.get("output"):
            line += f", output {f['output']}"
        if f.get("out_of_tolerance"):
            line += f": {f['out_of_tolerance']} out of tolerance (max abs error {f['max_abs_err']})"
        out.write(line + "\n")
        if f.get("message"):
            out.write(f"  {f['message']}\n")
        if f.get("positions"):
            out.write(f"  where: {f['positions']}\n")
        rows = [[m["index"], m["expected"], m["got"], m["abs_err"], m["rel_err"]] for m in f.get("mismatches") or []]
        if rows:
            table(rows, ["index", "expected", "got", "abs err", "rel err"], {0, 1, 2, 3, 4}, out)
    shown = len(failures)
    if fig.get("failures_total", 0) > shown:
        out.write(f"({fig['failures_total']} cases failed; the page lists them all)\n")


def report(status: dict[str, Any], server: str, out: TextIO) -> None:
    rep = status.get("report") or {}
    fig = status.get("figures") or {}
    verdict = fig.get("verdict") or status.get("verdict_text") or status.get("verdict")
    out.write(f"\n{verdict}" + (f"  ({fig['unranked']})" if fig.get("unranked") else "") + "\n")
    message = fig.get("summary") or rep.get("message")
    if message:
        out.write(f"{message}\n")
    if fig.get("cases") and not fig.get("summary"):
        out.write(f"{fig['cases']}\n")
    _failures(fig, out)
    shapes = fig.get("shapes") or []
    if shapes:
        rows = [
            [s["name"], s["median"], s["ci"], s["n"], s["bandwidth"], s["compute"], s["sol"], s["speedup"]]
            for s in shapes
        ]
        out.write("\n")
        header = ["shape", "median", "95% CI", "n", "bandwidth", "compute", "% SOL", "vs ref"]
        table(rows, header, {1, 2, 3, 4, 5, 6, 7}, out)
    if fig.get("score"):
        line = f"\nscore {fig['score']}"
        if fig.get("sol") and fig["sol"] != "—":
            line += f", {fig['sol']} of speed of light"
        if fig.get("speedup") and fig["speedup"] != "—":
            line += f", {fig['speedup']} the reference"
        if fig.get("rank"):
            line += f", {fig['rank']}"
        out.write(line + "\n")
    for key, title in (("compile_log", "compiler output"), ("stdout", "stdout"), ("stderr", "stderr")):
        if rep.get(key):
            out.write(f"\n--- {title} ---\n{rep[key].rstrip()}\n")
    out.write(f"\n{server}{status.get('url', '')}\n")


def board(data: dict[str, Any], out: TextIO) -> None:
    ranked = bool(data.get("ranked"))
    title = f"{data['problem']} on {data['gpu']}, {data.get('language') or 'all languages'}"
    if not ranked:
        title += " - unranked practice runs (CPU host), fastest first"
    out.write(f"{title}: {data.get('total_text') or plural(data['total'], 'entry', 'entries')}\n")
    entries = list(data.get("entries") or [])
    viewer = data.get("viewer")
    if viewer and not any(e.get("is_viewer") for e in entries):
        entries.append(viewer)
    rows = [
        ([e["rank_text"]] if ranked else [])
        + [
            e["user"] + (" (you)" if e.get("is_viewer") else ""),
            e["score_text"],
            e["sol_text"],
            e["speedup_text"],
            e.get("language", ""),
        ]
        for e in entries
    ]
    header = (["rank"] if ranked else []) + ["user", "score", "% SOL", "vs ref", "language"]
    right = {0, 2, 3, 4} if ranked else {1, 2, 3}
    if rows:
        table(rows, header, right, out)
    if ranked and any(e.get("tied") for e in entries):
        out.write("= tied: the 95% confidence intervals overlap and both runs were timed often enough to tell\n")
