"""InputSample: the check between two calls on the same benchmark input set."""

from __future__ import annotations

import torch

from judge.harness.common.tensors import BETWEEN_CALLS_SAMPLE, InputSample


def generator(seed: int = 1) -> torch.Generator:
    g = torch.Generator()
    g.manual_seed(seed)
    return g


def test_a_small_input_is_kept_whole_so_any_single_write_is_seen() -> None:
    x = torch.randn(1000)
    sample = InputSample.take(x, generator())
    assert sample.where is None and sample.unchanged(x)
    x[999] = torch.nextafter(x[999], torch.tensor(1e9))  # one ulp in the last element
    assert not sample.unchanged(x)


def test_a_large_input_is_sampled_and_a_write_over_part_of_it_is_seen() -> None:
    x = torch.randn(4 * BETWEEN_CALLS_SAMPLE)
    sample = InputSample.take(x, generator())
    assert sample.where is not None and sample.bits.numel() == BETWEEN_CALLS_SAMPLE
    assert sample.unchanged(x)
    x[: x.numel() // 1000].zero_()  # 0.1% of it: ~1000 of the sampled positions fall there
    assert not sample.unchanged(x)


def test_bits_are_compared_not_values() -> None:
    """-0.0 == 0.0 and NaN != NaN as floats; as bits the first differs and the second matches."""
    x = torch.tensor([0.0, float("nan"), 1.0])
    sample = InputSample.take(x, generator())
    assert sample.unchanged(x)
    x[0] = -0.0
    assert not sample.unchanged(x)


def test_each_take_draws_new_positions() -> None:
    x = torch.randn(2 * BETWEEN_CALLS_SAMPLE)
    g = generator()
    first, second = InputSample.take(x, g), InputSample.take(x, g)
    assert first.where is not None and second.where is not None
    assert not torch.equal(first.where, second.where)
