"""Numbers as people read them: significant digits and a unit, always."""

from __future__ import annotations

import math

_DASH = "—"


def sig(value: float, digits: int = 4) -> str:
    """`value` to `digits` significant digits, without exponent notation, thousands separated."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:,.{decimals}f}"


def duration_us(value: float | None) -> str:
    """12.34 µs, 1.234 ms, 2.000 s."""
    if value is None:
        return _DASH
    if value < 1000:
        return f"{sig(value)} µs"
    if value < 1_000_000:
        return f"{sig(value / 1000)} ms"
    return f"{sig(value / 1_000_000)} s"


def seconds(value: float | None) -> str:
    if value is None:
        return _DASH
    return f"{value:.1f} s"


def bandwidth_gbps(value: float | None) -> str:
    if value is None:
        return _DASH
    if value >= 1000:
        return f"{sig(value / 1000, 3)} TB/s"
    if value >= 1 or value == 0:
        return f"{sig(value, 3)} GB/s"
    if value >= 1e-3:
        return f"{sig(value * 1000, 3)} MB/s"
    return f"{sig(value * 1e6, 3)} kB/s"


def flops_rate(flops_per_second: float | None) -> str:
    """An arithmetic rate with the prefix that keeps it readable: 312 GFLOP/s, 1.23 TFLOP/s."""
    if flops_per_second is None:
        return _DASH
    for scale, unit in ((1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s")):
        if flops_per_second >= scale:
            return f"{sig(flops_per_second / scale, 3)} {unit}"
    return f"{sig(flops_per_second, 3)} FLOP/s"


def percent(value: float | None, digits: int = 1) -> str:
    if value is None:
        return _DASH
    return f"{value:.{digits}f} %"


def factor(value: float | None) -> str:
    if value is None:
        return _DASH
    if value < 0.1:  # a CPU run against a GPU-class reference: keep two significant digits
        return f"{sig(value, 2)}×"  # noqa: RUF001
    return f"{value:.2f}×"  # noqa: RUF001 (the multiplication sign is meant)


def count(value: float | None) -> str:
    if value is None:
        return _DASH
    return f"{int(value):,}"


def error(value: float | str | None) -> str:
    """Numerical errors and tolerances: exponent notation reads best."""
    if value is None:
        return _DASH
    if isinstance(value, str):  # "nan"/"inf" as a JSON-safe string
        return value
    return f"{value:.2e}"


def scalar(value: float | str | None) -> str:
    """A tensor element, shown precisely enough to see the difference between two of them."""
    if value is None:
        return _DASH
    if isinstance(value, str):  # "nan"/"inf" as a JSON-safe string
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return f"{value:.7g}"


def bytes_size(value: float | None) -> str:
    if value is None:
        return _DASH
    for scale, unit in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if value >= scale:
            return f"{sig(value / scale, 3)} {unit}"
    return f"{int(value)} B"


def sizes(values: dict[str, int] | None) -> str:
    """{"m": 4096, "n": 8192} -> "m=4,096 n=8,192"."""
    if not values:
        return ""
    return " ".join(f"{k}={v:,}" for k, v in values.items())


def _decimal(value: float, unit: str) -> str:
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{sig(value / scale, 3)} {prefix}{unit}"
    return f"{sig(value, 3)} {unit}"


def flop_count(value: float | None) -> str:
    """An amount of arithmetic: 268 MFLOP."""
    return "—" if value is None else _decimal(value, "FLOP")


def decimal_bytes(value: float | None) -> str:
    """An amount of traffic in decimal units, to match GB/s: 805 MB."""
    return "—" if value is None else _decimal(value, "B")


def intensity(value: float | None) -> str:
    return "—" if value is None else f"{sig(value, 3)} FLOP/B"
