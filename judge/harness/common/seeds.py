"""Per-case seeds the submission cannot predict (stdlib only).

The job carries a public seed (shown to the user, stable across re-judging). The worker holds a
secret that never enters the sandbox. Each case's inputs come from
HMAC-SHA256(secret, f"{public_seed}:{case}:{set_index}"), so a child that learns the seeds of the
cases it was given learns nothing about any other case, set or job.
"""

from __future__ import annotations

import hashlib
import hmac

# Seeds stay below 2**62 so that reference code may add small offsets (seed + 1) and still fit
# torch's 64-bit generator seeds.
SEED_BITS = 62


def derive_seed(secret: bytes, public_seed: int, case: str, set_index: int = 0) -> int:
    if not secret:
        raise ValueError("the judge secret must not be empty")
    message = f"{public_seed}:{case}:{set_index}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << SEED_BITS) - 1)


def test_case_key(name: str) -> str:
    return f"test:{name}"


def bench_case_key(name: str) -> str:
    return f"bench:{name}"


def fresh_seed(key: int, index: int) -> int:
    """Seed number `index` of a benchmark shape's fresh inputs (the sets regenerated between
    timed calls). `key` is the shape's own secret-derived seed, so the sequence is public only
    to the child that was given the key; parent and child compute the same numbers."""
    digest = hashlib.blake2b(f"{key}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") & ((1 << SEED_BITS) - 1)


def fresh_key_name(name: str) -> str:
    return f"bench-fresh:{name}"


def participant_public_seed(secret: bytes, public_seed: int, participant_seed: int) -> int:
    """The public seed of an assessment's or contest's job, with the participant's secret seed mixed
    in by the parent (docs/assessments.md): every case seed derived from it then differs per
    participant, and the child, which gets only derived seeds, learns neither."""
    return derive_seed(secret, public_seed, f"participant:{participant_seed}")
