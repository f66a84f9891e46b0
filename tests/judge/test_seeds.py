"""Per-case seeds: HMAC-SHA256(secret, "public:case:set"), unpredictable without the secret."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from judge.harness.common.seeds import SEED_BITS, derive_seed

SECRET = b"0123456789abcdef-secret"


def test_the_seed_is_the_documented_hmac_of_public_seed_case_and_set() -> None:
    digest = hmac.new(SECRET, b"42:test:prime:3", hashlib.sha256).digest()
    expected = int.from_bytes(digest[:8], "big") & ((1 << SEED_BITS) - 1)
    assert derive_seed(SECRET, 42, "test:prime", 3) == expected


def test_the_same_inputs_give_the_same_seed_so_rejudging_is_reproducible() -> None:
    assert derive_seed(SECRET, 7, "bench:16M", 0) == derive_seed(SECRET, 7, "bench:16M", 0)


def test_every_part_of_the_message_and_the_secret_change_the_seed() -> None:
    base = derive_seed(SECRET, 7, "bench:16M", 0)
    variants = {
        derive_seed(SECRET, 8, "bench:16M", 0),
        derive_seed(SECRET, 7, "bench:64M", 0),
        derive_seed(SECRET, 7, "bench:16M", 1),
        derive_seed(b"another secret of some length", 7, "bench:16M", 0),
    }
    assert base not in variants and len(variants) == 4


def test_seeds_leave_headroom_below_two_to_the_62() -> None:
    seeds = [derive_seed(SECRET, s, "test:x", k) for s in range(50) for k in range(4)]
    assert all(0 <= s < 2**62 for s in seeds)
    assert len(set(seeds)) == len(seeds)


def test_an_empty_secret_is_refused() -> None:
    with pytest.raises(ValueError):
        derive_seed(b"", 1, "test:x")
