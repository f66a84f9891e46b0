"""Template filters that format numbers with units (see gridstride.pages.units)."""

from __future__ import annotations

from typing import Any

from django import template

from gridstride.pages import units

register = template.Library()

register.filter("us", units.duration_us)
register.filter("seconds", units.seconds)
register.filter("clock", units.clock)
register.filter("gbps", units.bandwidth_gbps)
register.filter("pct", units.percent)
register.filter("factor", units.factor)
register.filter("count", units.count)
register.filter("err", units.error)
register.filter("scalar", units.scalar)
register.filter("bytesize", units.bytes_size)
register.filter("sizes", units.sizes)


register.filter("tflops", units.tflops_rate)


@register.filter
def bar_width(value: float | None) -> str:
    """A percentage clamped to 0..100, for the width of a speed-of-light bar."""
    if value is None:
        return "0"
    return f"{max(0.0, min(100.0, float(value))):.1f}"


@register.filter
def get(mapping: Any, key: str) -> Any:
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None


register.filter("flop", units.flop_count)
register.filter("decbytes", units.decimal_bytes)
register.filter("intensity", units.intensity)


@register.filter
def join_names(tensors: Any) -> str:
    """Names of a list of tensor specs, comma-separated (for the solve() signature)."""
    return ", ".join(str(t.get("name", "")) for t in tensors or [])


register.filter("flops_rate", units.flops_rate)


@register.filter
def plural(value: int, words: str) -> str:
    """{{ n|plural:"entry,entries" }} -> "1 entry", "3 entries"."""
    singular, _, many = words.partition(",")
    return units.plural(int(value or 0), singular, many or None)
