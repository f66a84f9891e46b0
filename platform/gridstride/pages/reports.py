"""A judge Report (judge/protocol.py) turned into what the result panel shows.

Pure data shaping: the templates (templates/submissions/_report.html) do the markup, and every
string from the report (messages, logs, outputs) stays a plain string that Django escapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.safestring import SafeString

from gridstride.leaderboards.queries import geomean
from gridstride.pages import roofline, units
from gridstride.pages.logs import link_line_numbers

VERDICT_TEXT = {
    "accepted": "Accepted",
    "wrong_answer": "Wrong answer",
    "compile_error": "Compile error",
    "runtime_error": "Runtime error",
    "time_limit": "Time limit exceeded",
    "memory_limit": "Memory limit exceeded",
    "rejected": "Rejected",
    "internal_error": "Internal error",
}
VERDICT_HELP = {
    "compile_error": "The code did not compile. Line numbers link to the line in your code.",
    "runtime_error": "The code raised an error or crashed while it ran.",
    "time_limit": "The run went past the time limit of this mode.",
    "memory_limit": "The run used more memory than the limit allows.",
    "rejected": "The run broke a rule of the judge; the message names it.",
    "internal_error": "The judge failed on its side. This is not your code's fault; submit again.",
}
STAGE_TEXT = {
    "queued": "queued",
    "compiling": "compiling",
    "testing": "checking cases",
    "benchmarking": "benchmarking",
    "profiling": "profiling",
    "done": "done",
}
# Keys of Report.ceilings that hold the memory roof, in order of preference.
_BANDWIDTH_KEYS = ("dram_gbps", "memory_gbps", "bandwidth_gbps", "copy_gbps")
_CEILING_UNITS = (
    ("_gbps", "GB/s"),
    ("_tflops", "TFLOP/s"),
    ("_gflops", "GFLOP/s"),
    ("_mhz", "MHz"),
    ("_bytes", "bytes"),
    ("_us", "µs"),
    ("_w", "W"),
)


def stage_text(status: str, progress: dict[str, Any] | None, position: int | None = None) -> str:
    """'queued (position 3)', 'compiling', 'checking case 4/9', 'benchmarking shape 2/3'."""
    progress = progress or {}
    stage = progress.get("stage") or status
    done, total = progress.get("done") or 0, progress.get("total") or 0
    if status == "queued" or stage == "queued":
        return f"queued (position {position})" if position else "queued"
    if stage == "testing" and total:
        return f"checking case {min(done + 1, total)}/{total}" if done < total else f"checked {total}/{total} cases"
    if stage == "benchmarking" and total:
        return (
            f"benchmarking shape {min(done + 1, total)}/{total}"
            if done < total
            else f"benchmarked {total}/{total} shapes"
        )
    return STAGE_TEXT.get(stage, stage)


@dataclass
class CaseRow:
    name: str
    sizes: str
    passed: bool
    max_abs_err: float
    max_rel_err: float
    rel_l2: float
    tolerance: str
    mismatch_count: int
    mismatches: list[dict[str, Any]]
    message: str
    output: str
    elements: int = 0
    positions: str = ""


@dataclass
class ShapeRow:
    name: str
    sizes: str
    n: int
    median_us: float
    ci_low_us: float
    ci_high_us: float
    ci_half_pct: float | None
    ci_text: str
    gbps: float | None
    tflops: float | None
    sol_pct: float | None
    speedup: float | None
    reference_median_us: float | None
    memory_bound: bool
    # How it was timed, shown on hover: the GPU-side wait before each call and the spread of
    # the per-input-set medians (docs/judging.md, section 5).
    method_note: str = ""
    # Set when the judge timed the shape twice (docs/judging.md, section 4, hidden-work).
    retimed_note: str = ""


@dataclass
class TimelineRow:
    event: str
    at_s: float
    step_s: float


@dataclass
class ReportView:
    verdict: str
    verdict_text: str
    verdict_help: str
    message: SafeString
    mode: str
    ranked: bool
    unranked_reason: str
    cases: list[CaseRow]
    cases_passed: int
    first_failure: CaseRow | None
    # The failing cases shown in full, most telling first (most mismatches, then the largest).
    failures: list[CaseRow]
    shapes: list[ShapeRow]
    score_us: float | None
    sol_pct: float | None
    speedup: float | None
    compile_log: SafeString
    stdout: str
    stderr: SafeString
    system: list[tuple[str, str]]
    ceilings: list[tuple[str, str]]
    kernels: list[dict[str, Any]]
    elapsed_s: float | None
    chart: SafeString
    chart_points: list[roofline.Point] = field(default_factory=list)
    gpu_name: str = ""
    # Judged on a CPU host: its measured roofs draw the roofline, and no % of speed of light is given.
    cpu_host: bool = False
    rank: int | None = None
    rank_tied: bool = False
    board_url: str = ""
    timeline: list[TimelineRow] = field(default_factory=list)
    failures_total: int = 0
    # Shapes judged but not shown here (an assessment's or contest's hidden shapes).
    hidden_shapes: int = 0


def _tolerance_text(tol: dict[str, Any]) -> str:
    parts = [
        f"atol {units.error(tol['atol'])}" if "atol" in tol else "",
        f"rtol {units.error(tol['rtol'])}" if "rtol" in tol else "",
    ]
    if tol.get("rel_l2"):
        parts.append(f"rel L2 {units.error(tol['rel_l2'])}")
    return ", ".join(p for p in parts if p)


def _case(data: dict[str, Any]) -> CaseRow:
    return CaseRow(
        name=str(data.get("name", "")),
        sizes=units.sizes(data.get("sizes")),
        passed=bool(data.get("passed")),
        max_abs_err=float(data.get("max_abs_err") or 0.0),
        max_rel_err=float(data.get("max_rel_err") or 0.0),
        rel_l2=float(data.get("rel_l2") or 0.0),
        tolerance=_tolerance_text(data.get("tolerance") or {}),
        mismatch_count=int(data.get("mismatch_count") or 0),
        mismatches=[
            {**m, "index_text": "[" + ", ".join(str(i) for i in m.get("index", [])) + "]"}
            for m in (data.get("mismatches") or [])[:20]
        ],
        message=str(data.get("message") or ""),
        output=str(data.get("output") or ""),
        elements=_elements(data.get("sizes")),
        positions=positions_text(data.get("positions")),
    )


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def positions_text(positions: Any) -> str:
    """The judge's summary of where the wrong elements are (flat indices into the output, row-major):
    'only flat index 999, the last element', 'every 32nd element from flat index 31 to 4,095'."""
    if not isinstance(positions, dict):
        return ""
    first, last, stride = positions.get("first"), positions.get("last"), positions.get("stride")
    count, total = positions.get("count"), positions.get("total")
    if not isinstance(first, int) or not isinstance(last, int):
        return ""
    if first == last:
        text = f"only flat index {first:,}"
        if isinstance(total, int) and total > 1 and last == total - 1:
            text += ", the last element"
        elif first == 0:
            text += ", the first element"
        return text
    if stride == 1:
        text = f"one contiguous run, flat indices {first:,} to {last:,}"
        if isinstance(total, int) and first == 0 and last == total - 1:
            text += ": the whole output"
        elif isinstance(total, int) and last == total - 1:
            text += ", up to the end"
    elif isinstance(stride, int) and stride > 1:
        text = f"every {_ordinal(stride)} element from flat index {first:,} to {last:,}"
    else:
        text = f"scattered between flat indices {first:,} and {last:,}"
    if isinstance(count, int):
        text += f" ({units.plural(count, 'element')})"
    return text


def _elements(sizes: Any) -> int:
    """The product of a case's sizes: how large it is, for ordering failures."""
    product = 1
    for value in (sizes or {}).values() if isinstance(sizes, dict) else ():
        if isinstance(value, int) and value > 0:
            product *= value
    return product


# Failing cases shown in full; the rest are rows of the cases table.
FAILURES_SHOWN = 3


def telling_failures(cases: list[CaseRow]) -> list[CaseRow]:
    """Failing cases, the most telling first: most elements out of tolerance, then the largest
    case (a one-element case that fails says little about where a kernel goes wrong)."""
    failing = [c for c in cases if not c.passed]
    return sorted(failing, key=lambda c: (-c.mismatch_count, -c.elements))


def _bandwidth(ceilings: dict[str, Any]) -> float | None:
    for key in _BANDWIDTH_KEYS:
        if ceilings.get(key):
            return float(ceilings[key])
    found = [float(v) for k, v in ceilings.items() if k.endswith("_gbps") and isinstance(v, int | float)]
    return max(found) if found else None


# Keys of Report.ceilings for each compute roof a problem can name (judge/harness/parent/ceilings.py).
_PEAK_KEYS = {
    "fp32": ("fp32_tflops",),
    "bf16_tensor": ("bf16_tflops", "bf16_tensor_tflops"),
    "fp8_tensor": ("fp8_tflops", "fp8_tensor_tflops"),
}
_ROOF_LABELS = {"fp32": "fp32", "bf16_tensor": "tensor core bf16", "fp8_tensor": "tensor core fp8"}


def _peak(ceilings: dict[str, Any], compute_roof: str) -> float | None:
    for key in _PEAK_KEYS.get(compute_roof, (f"{compute_roof}_tflops",)):
        if ceilings.get(key):
            return float(ceilings[key])
    found = [float(v) for k, v in ceilings.items() if k.endswith("_tflops") and isinstance(v, int | float)]
    return max(found) if found else None


def _shape(data: dict[str, Any], bandwidth: float | None, peak: float | None) -> ShapeRow:
    median = float(data.get("median_us") or 0.0)
    low, high = float(data.get("ci_low_us") or median), float(data.get("ci_high_us") or median)
    flops, nbytes = float(data.get("flops") or 0.0), float(data.get("bytes") or 0.0)
    if bandwidth and peak and flops and nbytes:
        memory_bound = nbytes / (bandwidth * 1e9) >= flops / (peak * 1e12)
    else:
        memory_bound = nbytes > 0 and flops / max(nbytes, 1.0) < 10
    return ShapeRow(
        name=str(data.get("name", "")),
        sizes=units.sizes(data.get("sizes")),
        n=int(data.get("n") or 0),
        median_us=median,
        ci_low_us=low,
        ci_high_us=high,
        ci_half_pct=(high - low) / 2 / median * 100 if median else None,
        ci_text=units.half_width(low, high, median),
        # From bytes, FLOPs and the median rather than the judge's rounded figures: a CPU run's
        # few MB/s would otherwise read as 0.
        gbps=nbytes / (median * 1e-6) / 1e9 if median and nbytes else data.get("gbps"),
        tflops=flops / (median * 1e-6) / 1e12 if median and flops else data.get("tflops"),
        sol_pct=data.get("sol_pct") or None,
        speedup=data.get("speedup_vs_reference") or None,
        reference_median_us=data.get("reference_median_us"),
        memory_bound=memory_bound,
        method_note=_method_note(data),
        retimed_note=_retimed_note(data),
    )


def _retimed_note(data: dict[str, Any]) -> str:
    attempts = data.get("timing_attempts")
    if not isinstance(attempts, int) or attempts < 2:
        return ""
    slow = [n for n in data.get("slow_drains") or [] if isinstance(n, int)]
    first = f" ({slow[0]} slow drains)" if slow else ""
    return (
        f"timed {attempts} times: the first timing's drains looked like work left running after solve() "
        f"returned{first}; these figures are from the last timing"
    )


def _method_note(data: dict[str, Any]) -> str:
    parts = []
    cover = data.get("launch_cover_us")
    if isinstance(cover, int | float) and cover > 0:
        parts.append(f"launch cover {units.sig(float(cover), 3)} µs before each call")
    sets = [v for v in data.get("set_medians_us") or [] if isinstance(v, int | float) and v > 0]
    if len(sets) > 1:
        parts.append(f"{len(sets)} input sets, medians {units.sig(min(sets), 4)} to {units.sig(max(sets), 4)} µs")
    return "; ".join(parts)


# The judge's names for its own steps, in the words of someone waiting for a verdict.
_EVENT_LABELS = {
    "checked the source; ceilings": "source checked",
    "child started": "judge process assigned",
    "child ready": "judge process ready (right after another job, this waits for its start-up)",
    "child done": "all results in",
}


_OUTPUT_RECEIVED = re.compile(r"output (\w+) received \((\d+) MiB\)")


def _event_label(event: str) -> str:
    if event in _EVENT_LABELS:
        return _EVENT_LABELS[event]
    received = _OUTPUT_RECEIVED.fullmatch(event)
    if received:  # a large output's copy to the judge (the step before its check)
        return f"your output {received[1]} copied to the judge ({received[2]} MiB)"
    return event


def _timeline(raw: Any) -> list[TimelineRow]:
    """The judge's (event, seconds since the job arrived) pairs, with each step's own duration."""
    rows: list[TimelineRow] = []
    previous = 0.0
    for item in raw if isinstance(raw, list) else []:
        if not (isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[1], int | float)):
            continue
        at = float(item[1])
        event = str(item[0])[:80]
        rows.append(TimelineRow(event=_event_label(event), at_s=at, step_s=max(at - previous, 0.0)))
        previous = at
    return rows


def _label(key: str) -> str:
    return key.replace("_", " ")


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if value is None or value == "":
            continue
        if isinstance(value, dict):
            rows += _flatten(value, f"{name}.")
        elif isinstance(value, list):
            rows.append((_label(name), "; ".join(_compact(v) for v in value)))
        else:
            rows.append((_label(name), _with_unit(key, value)))
    return rows


def _compact(value: Any) -> str:
    """One list item: a dict (a clock sample per shape, say) as "key value" pairs."""
    if isinstance(value, dict):
        return ", ".join(f"{_label(str(k))} {_with_unit(str(k), v)}" for k, v in value.items())
    return str(value)


def _with_unit(key: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    for suffix, unit in _CEILING_UNITS:
        if key.endswith(suffix):
            if unit == "bytes":
                return units.bytes_size(value)
            return f"{units.sig(float(value), 4)} {unit}"
    return str(value)


def _points(series: str, benchmarks: list[dict[str, Any]], *, reference: bool = False) -> list[roofline.Point]:
    points = []
    for b in benchmarks:
        flops, nbytes = float(b.get("flops") or 0.0), float(b.get("bytes") or 0.0)
        time_us = b.get("reference_median_us") if reference else b.get("median_us")
        if not (flops and nbytes and time_us):
            continue
        points.append(
            roofline.Point(
                series=series,
                shape=str(b.get("name", "")),
                intensity=flops / nbytes,
                flops_per_s=flops / (float(time_us) * 1e-6),
                time_us=float(time_us),
            )
        )
    return points


def roofs(ceilings: dict[str, Any], system: dict[str, Any], gpu_model: str, compute_roof: str) -> roofline.Roofs:
    """The roofline's roofs from a run's measured ceilings (a CPU host's labelled as such)."""
    compute_label = _ROOF_LABELS.get(compute_roof, "fp32")
    host = "CPU" if gpu_model == "cpu" or system.get("device") == "cpu" else ""
    if host:
        compute_label = "CPU " + compute_label.removeprefix("tensor core ")
    return roofline.Roofs(_bandwidth(ceilings), _peak(ceilings, compute_roof), compute_label, host)


def build(
    report: dict[str, Any],
    *,
    gpu_model: str,
    compute_roof: str = "fp32",
    best_benchmarks: list[dict[str, Any]] | None = None,
    is_best: bool = False,
    language: str = "",
) -> ReportView:
    cases = [_case(c) for c in report.get("cases") or []]
    ceilings = report.get("ceilings") or {}
    system = report.get("system") or {}
    bandwidth, peak = _bandwidth(ceilings), _peak(ceilings, compute_roof)
    benchmarks = report.get("benchmarks") or []
    shapes = [_shape(b, bandwidth, peak) for b in benchmarks]
    ranked = bool(report.get("ranked"))
    unranked_reason = ""
    language = language or str(report.get("language") or "")
    if not ranked:
        if gpu_model == "cpu":
            # Only Triton runs in an interpreter there; PyTorch, CuPy and CUDA runs ran on the CPU.
            unranked_reason = "unranked: CPU interpreter" if language == "triton" else "unranked: CPU host"
        elif report.get("mode") != "benchmark" and report.get("mode") != "profile":
            unranked_reason = "unranked: correctness run"
        else:
            unranked_reason = "unranked"
    # Drawn in this order, so this submission's points stay on top of the others.
    points = _points("reference", benchmarks, reference=True)
    if best_benchmarks and not is_best:
        points += _points("best", best_benchmarks)
    points += _points("submission", benchmarks)
    verdict = str(report.get("verdict", ""))
    chart = roofline.render(points, roofs(ceilings, system, gpu_model, compute_roof)) if shapes else SafeString("")
    speedups = [s.speedup for s in shapes]
    failures = telling_failures(cases)
    message = str(report.get("message") or "")
    if verdict == "accepted" and shapes and report.get("score_us"):
        message = summary(len(cases), len(shapes), report.get("score_us"), ranked, gpu_model)
    return ReportView(
        verdict=verdict,
        verdict_text=VERDICT_TEXT.get(verdict, verdict),
        verdict_help=VERDICT_HELP.get(verdict, ""),
        message=link_line_numbers(message),
        mode=str(report.get("mode") or ""),
        ranked=ranked,
        unranked_reason=unranked_reason,
        cases=cases,
        cases_passed=sum(c.passed for c in cases),
        first_failure=failures[0] if failures else None,
        failures=failures[:FAILURES_SHOWN],
        failures_total=len(failures),
        shapes=shapes,
        score_us=report.get("score_us"),
        sol_pct=report.get("sol_pct"),
        speedup=geomean(speedups) if shapes else None,
        compile_log=link_line_numbers(str(report.get("compile_log") or "")),
        stdout=str(report.get("stdout") or ""),
        stderr=link_line_numbers(str(report.get("stderr") or "")),
        system=_flatten({k: v for k, v in system.items() if k not in _SHOWN_APART}),
        ceilings=_flatten(ceilings),
        kernels=list(report.get("kernels") or []),
        elapsed_s=report.get("elapsed_s"),
        chart=chart,
        chart_points=points,
        gpu_name=_gpu_name(system, gpu_model),
        cpu_host=gpu_model == "cpu" or system.get("device") == "cpu",
        timeline=_timeline(system.get("timeline_s")),
        hidden_shapes=int(report.get("hidden_shapes") or 0),
    )


def summary(cases: int, shapes: int, score_us: Any, ranked: bool, gpu_model: str) -> str:
    """An accepted run in one line, from the same formatter as every other figure."""
    text = ("The case passed; " if cases == 1 else f"All {cases:,} cases passed; ") if cases else ""
    text += f"score {units.duration_us(float(score_us))} (geometric mean of {units.plural(shapes, 'shape')})"
    if not ranked and gpu_model == "cpu":
        text += ", on a CPU host: unranked"
    return text


# System entries with a view of their own (not the key/value list).
_SHOWN_APART = ("timeline_s",)


def _gpu_name(system: dict[str, Any], gpu_model: str) -> str:
    for key in ("gpu", "gpu_name", "device_name"):
        if isinstance(system.get(key), str) and system[key]:
            return str(system[key])
    if gpu_model == "cpu" or system.get("device") == "cpu":
        return "the CPU (no GPU)"
    return gpu_model.upper()
