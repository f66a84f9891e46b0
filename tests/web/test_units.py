"""The one formatter (gridstride.pages.units): units chosen per magnitude, the same on pages, in
the API's figures and so in the CLI."""

from __future__ import annotations

import pytest
from gridstride.pages import units


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0.5000 µs"),
        (12.345, "12.35 µs"),
        (999.4, "999.4 µs"),
        (999.96, "1.000 ms"),
        (1234.6, "1.235 ms"),
        (410_329.893, "410.3 ms"),
        (999_990.0, "1.000 s"),
        (2_500_000, "2.500 s"),
        (0, "0 µs"),
        (None, "—"),
        (float("nan"), "—"),
    ],
)
def test_a_duration_takes_us_ms_or_s_by_magnitude(value: float | None, text: str) -> None:
    assert units.duration_us(value) == text


@pytest.mark.parametrize(
    ("bytes_per_s", "text"),
    [
        (512.0, "512 B/s"),
        (8.09e6, "8.09 MB/s"),
        (6.95e6, "6.95 MB/s"),
        (812e9, "812 GB/s"),
        (999.7e9, "1.00 TB/s"),
        (4.3e12, "4.30 TB/s"),
        (12_500.0, "12.5 kB/s"),
        (None, "—"),
    ],
)
def test_a_bandwidth_takes_b_to_tb_per_second_by_magnitude(bytes_per_s: float | None, text: str) -> None:
    assert units.byte_rate(bytes_per_s) == text


def test_a_bandwidth_in_the_judges_gb_per_second_reads_the_same() -> None:
    assert units.bandwidth_gbps(0.00809) == units.byte_rate(8.09e6) == "8.09 MB/s"
    assert units.bandwidth_gbps(3912.4) == "3.91 TB/s"


@pytest.mark.parametrize(
    ("flops", "text"),
    [
        (674_297.0, "674 kFLOP/s"),
        (579_094.0, "579 kFLOP/s"),
        (3.1e8, "310 MFLOP/s"),
        (2.5e12, "2.50 TFLOP/s"),
        (9.9e14, "990 TFLOP/s"),
        (12.0, "12.0 FLOP/s"),
    ],
)
def test_a_flop_rate_takes_flop_to_tflop_per_second_by_magnitude(flops: float, text: str) -> None:
    assert units.flops_rate(flops) == text


def test_a_rate_in_tflops_reads_the_same_as_in_flops() -> None:
    assert units.tflops_rate(6.74297e-7) == units.flops_rate(674_297.0)


@pytest.mark.parametrize(
    ("value", "text"),
    [(83.14, "83.1 %"), (100.0, "100.0 %"), (0.0042, "0.0042 %"), (0.0, "0.0 %"), (None, "—")],
)
def test_a_percentage_keeps_small_shares_readable(value: float | None, text: str) -> None:
    assert units.percent(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.234, "1.23×"), (0.00021, "0.00021×"), (12.0, "12.00×"), (None, "—")],  # noqa: RUF001
)
def test_a_speedup_is_a_factor(value: float | None, text: str) -> None:
    assert units.factor(value) == text


def test_a_confidence_interval_is_a_half_width_relative_to_the_median() -> None:
    assert units.half_width(99.0, 101.0, 100.0) == "±1.00 %"
    assert units.half_width(None, 101.0, 100.0) == "—"


def test_counts_are_pluralized() -> None:
    assert units.plural(1, "entry", "entries") == "1 entry"
    assert units.plural(3, "entry", "entries") == "3 entries"
    assert units.plural(2, "shape") == "2 shapes"
    assert units.plural(1, "case") == "1 case"


def test_sizes_and_amounts_carry_units() -> None:
    assert units.sizes({"m": 4096, "n": 8}) == "m=4,096 n=8"
    assert units.decimal_bytes(537e6) == "537 MB"
    assert units.flop_count(2.68e8) == "268 MFLOP"
    assert units.bytes_size(1536) == "1.50 KiB"
    assert units.scalar(float("nan")) == "nan" and units.scalar("inf") == "inf"
    assert units.sig(999.96, 4) == "1,000"


@pytest.mark.parametrize(
    ("value", "text"),
    [(42113.4, "11:41:53"), (3600, "1:00:00"), (245, "4:05"), (59.6, "1:00"), (0, "0:00"), (-3, "0:00"), (None, "—")],
)
def test_time_left_reads_as_a_clock_like_the_countdown(value: float | None, text: str) -> None:
    assert units.clock(value) == text
