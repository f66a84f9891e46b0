"""Numbers as people read them: significant digits and a unit chosen for the magnitude, always.

The one formatter of the site: pages (template filters in templatetags/gs.py), the JSON API (which
carries these strings beside the raw values) and so the CLI (which prints the API's strings and
never formats a figure itself). Rates take base units (bytes/s, FLOP/s); the *_gbps / *_tflops
helpers only convert the judge's units first. A missing value is an em dash.
"""

from __future__ import annotations

import math

DASH = "—"
_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def sig(value: float, digits: int = 4) -> str:
    """`value` to `digits` significant digits, without exponent notation, thousands separated."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{value:,.{decimals}f}"
    # Rounding can carry into the next decade (999.96 -> "1,000.0"): redo with one decimal less.
    if decimals and len(text.replace(",", "").replace("-", "").replace(".", "").lstrip("0")) > digits:
        text = f"{value:,.{decimals - 1}f}"
    return text


def _finite(value: float | None) -> bool:
    return value is not None and isinstance(value, int | float) and math.isfinite(value)


def duration_us(value: float | None) -> str:
    """A time given in microseconds: 0.5000 µs, 12.34 µs, 1.234 ms, 2.000 s."""
    if not _finite(value):
        return DASH
    assert value is not None
    if value == 0:
        return "0 µs"
    if value < 999.95:
        return f"{sig(value)} µs"
    if value < 999_950:
        return f"{sig(value / 1000)} ms"
    return f"{sig(value / 1_000_000)} s"


def seconds(value: float | None) -> str:
    if not _finite(value):
        return DASH
    assert value is not None
    return f"{value:.1f} s"


def clock(value: float | None) -> str:
    """Time left as a clock reads it: 11:46:25, 4:05 (the assessment page's countdown does the same)."""
    if not _finite(value):
        return DASH
    assert value is not None
    total = max(0, round(value))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _decimal(value: float, unit: str, digits: int = 3) -> str:
    """Decimal SI prefixes from k to P, the value kept at 1..999."""
    for scale, prefix in _PREFIXES:
        if value >= scale * 0.9995:
            return f"{sig(value / scale, digits)} {prefix}{unit}"
    return f"{sig(value, digits)} {unit}"


def byte_rate(bytes_per_s: float | None) -> str:
    """Bandwidth: 512 B/s, 8.09 MB/s, 3.21 TB/s (decimal, as GPU data sheets give it)."""
    if not _finite(bytes_per_s):
        return DASH
    assert bytes_per_s is not None
    return _decimal(bytes_per_s, "B/s")


def bandwidth_gbps(value: float | None) -> str:
    """A bandwidth the judge gives in GB/s."""
    return DASH if not _finite(value) else byte_rate(float(value) * 1e9)  # type: ignore[arg-type]


def flops_rate(flops_per_second: float | None) -> str:
    """An arithmetic rate: 674 kFLOP/s, 312 GFLOP/s, 1.23 TFLOP/s."""
    if not _finite(flops_per_second):
        return DASH
    assert flops_per_second is not None
    return _decimal(flops_per_second, "FLOP/s")


def tflops_rate(value: float | None) -> str:
    """An arithmetic rate the judge gives in TFLOP/s."""
    return DASH if not _finite(value) else flops_rate(float(value) * 1e12)  # type: ignore[arg-type]


def percent(value: float | None, digits: int = 1) -> str:
    """78.4 %; a small share keeps two significant digits (0.0042 %) instead of reading 0.0 %."""
    if not _finite(value):
        return DASH
    assert value is not None
    if value != 0 and abs(value) < 10**-digits * 5:
        return f"{sig(value, 2)} %"
    return f"{value:.{digits}f} %"


def factor(value: float | None) -> str:
    """A speedup: 1.23x (shown with the multiplication sign); a CPU run against a GPU-class reference keeps two significant digits."""
    if not _finite(value):
        return DASH
    assert value is not None
    if value != 0 and value < 0.1:
        return f"{sig(value, 2)}×"  # noqa: RUF001 (the multiplication sign is meant)
    return f"{value:.2f}×"  # noqa: RUF001


def half_width(low: float | None, high: float | None, median: float | None) -> str:
    """A confidence interval's half-width relative to the median: ±0.42 %."""
    if not (_finite(low) and _finite(high) and _finite(median)) or not median:
        return DASH
    assert low is not None and high is not None
    return f"±{(high - low) / 2 / median * 100:.2f} %"


def count(value: float | None) -> str:
    if not _finite(value):
        return DASH
    assert value is not None
    return f"{int(value):,}"


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """'1 entry', '3 entries', '1 shape', '2 shapes'."""
    word = singular if n == 1 else plural_form or f"{singular}s"
    return f"{n:,} {word}"


def error(value: float | str | None) -> str:
    """Numerical errors and tolerances: exponent notation reads best."""
    if value is None:
        return DASH
    if isinstance(value, str):  # "nan"/"inf" as a JSON-safe string
        return value
    return f"{value:.2e}"


def scalar(value: float | str | None) -> str:
    """A tensor element, shown precisely enough to see the difference between two of them."""
    if value is None:
        return DASH
    if isinstance(value, str):  # "nan"/"inf" as a JSON-safe string
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return f"{value:.7g}"


def bytes_size(value: float | None) -> str:
    """A size in memory, binary units: 48 KiB, 1.50 MiB."""
    if not _finite(value):
        return DASH
    assert value is not None
    for scale, unit in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if value >= scale:
            return f"{sig(value / scale, 3)} {unit}"
    return f"{int(value)} B"


def sizes(values: dict[str, int] | None) -> str:
    """{"m": 4096, "n": 8192} -> "m=4,096 n=8,192"."""
    if not values:
        return ""
    return " ".join(f"{k}={v:,}" for k, v in values.items())


def flop_count(value: float | None) -> str:
    """An amount of arithmetic: 268 MFLOP."""
    return DASH if not _finite(value) else _decimal(float(value), "FLOP")  # type: ignore[arg-type]


def decimal_bytes(value: float | None) -> str:
    """An amount of traffic in decimal units, to match B/s: 805 MB."""
    return DASH if not _finite(value) else _decimal(float(value), "B")  # type: ignore[arg-type]


def intensity(value: float | None) -> str:
    return DASH if not _finite(value) else f"{sig(float(value), 3)} FLOP/B"  # type: ignore[arg-type]
