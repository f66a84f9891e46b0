"""Trusted reference for the KV-cache append with int8 quantization. Runs only in the trusted process.

Layouts (contiguous, row-major); slots = num_blocks * block_size, tokens = slots + padding:
  key, value      bf16  [tokens, num_kv_heads, head_dim]   this step's new K and V rows
  slot_mapping    int32 [tokens]   block * block_size + offset, or -1 for a padding token
  k_cache, v_cache  int8    [num_blocks, block_size, num_kv_heads, head_dim]
  k_scale, v_scale  float32 [num_blocks, block_size, num_kv_heads]
Every row (token t, head h) of key and of value is quantized on its own:
  absmax = max |x| over the row's head_dim elements
  s = absmax / 127 in fp32 (rounded to nearest)
  q = round half to even (x / s), in [-127, 127]
  a row of zeros (absmax = 0) stores s = 0 and q = 0
and lands at slot_mapping[t]: cache[slot // block_size, slot % block_size, h, :] = q,
scale[slot // block_size, slot % block_size, h] = s. Padding tokens (slot -1) write nothing.

The pool has exactly one slot for each non-padding token (slot_mapping is a permutation of the
slots over them), so every element of the outputs is defined by this step: the judge poisons its
outputs before each call and compares all of them.
"""

from __future__ import annotations

import torch

_PARAM_SALT = 0x5A17_0016
QMAX = 127
_CHUNK_TOKENS = 1 << 14  # tokens of key or value processed at a time by the reference


def generate_inputs(
    seed: int,
    device: str = "cpu",
    *,
    num_blocks: int,
    block_size: int,
    num_kv_heads: int,
    head_dim: int,
    padding: int,
) -> dict[str, torch.Tensor]:
    """key and value = scale * N(0, 1) + offset, each row then multiplied by its own power of two
    in [2^-4, 2^4] (heads of one token differ in range, as real K and V heads do), in bf16.

    Planted where there are rows enough: a row of zeros (one of them -0.0) in key and in value, and
    rows of halfway cases: absmax = 127 * 2^j, so s = 2^j exactly and the other elements are odd
    multiples of 2^(j-1): x / s is exactly k + 1/2 and only the rounding rule decides.

    Removed everywhere else: an element equal to +-absmax / 2 in a row whose s is inexact. There
    127 x / absmax is exactly 63.5 while x / s is 63.5 (1 -+ a rounding of s), so x / s and
    x * (127 / absmax) can round apart; the element is moved one bf16 step toward zero. Every other
    quotient lies at least 1.5e-5 (relative) from a half-integer (docs in statement.md), far more
    than any fp32 evaluation's error, so all of them give the same q.

    slot_mapping: the last token and padding - 1 others (random places) are padding (-1); the
    others get a random permutation of the slots."""
    slots = num_blocks * block_size
    tokens = slots + padding
    gen_params = torch.Generator().manual_seed((seed ^ _PARAM_SALT) % (1 << 63))
    scale = torch.empty(2, dtype=torch.float64).uniform_(0.25, 4.0, generator=gen_params).tolist()
    offset = torch.empty(2, dtype=torch.float64).uniform_(-0.5, 0.5, generator=gen_params).tolist()
    gen = torch.Generator(device=device).manual_seed(seed % (1 << 63))
    shape = (tokens, num_kv_heads, head_dim)
    made = []
    for i in range(2):
        x = torch.randn(shape, generator=gen, device=device).mul_(scale[i]).add_(offset[i] * scale[i])
        exponent = torch.randint(-4, 5, (tokens, num_kv_heads, 1), generator=gen, device=device)
        made.append(torch.ldexp(x, exponent.float()).to(torch.bfloat16))
    slot_mapping = torch.full((tokens,), -1, dtype=torch.int32, device=device)
    if padding:
        live = torch.randperm(tokens - 1, generator=gen, device=device)[:slots]
    else:
        live = torch.arange(tokens, device=device)
    slot_mapping[live] = torch.randperm(slots, generator=gen, device=device).to(torch.int32)
    live_tokens = live.sort().values
    for x in made:
        _plant(x, live_tokens, gen, device)
        _remove_ambiguous_halves(x)
    return {"key": made[0], "value": made[1], "slot_mapping": slot_mapping}


def _plant(x: torch.Tensor, live_tokens: torch.Tensor, gen: torch.Generator, device: str) -> None:
    """A zero row (one element -0.0) and up to three halfway rows, at random rows (token, head) of
    the non-padding tokens (row r: token live_tokens[r // heads], head r % heads)."""
    heads, head_dim = x.shape[1], x.shape[2]
    count = live_tokens.numel() * heads
    if count < 2:
        return
    pick = torch.randperm(count, generator=gen, device=device)[:4].tolist()

    def token_head(r: int) -> tuple[int, int]:
        return int(live_tokens[r // heads]), r % heads

    t, h = token_head(pick[0])
    x[t, h] = 0.0
    x[t, h, int(torch.randint(head_dim, (1,), generator=gen, device=device))] = -0.0
    for p in pick[1:]:
        t, h = token_head(p)
        j = int(torch.randint(-6, 3, (1,), generator=gen, device=device))
        odd = 2 * torch.randint(-127, 127, (head_dim,), generator=gen, device=device) + 1  # |odd| <= 253
        row = odd.double() * 2.0 ** (j - 1)
        where = int(torch.randint(head_dim, (1,), generator=gen, device=device))
        sign = 1.0 if int(torch.randint(2, (1,), generator=gen, device=device)) else -1.0
        row[where] = sign * 127.0 * 2.0**j
        x[t, h] = row.to(torch.bfloat16)  # every value has at most 8 significant bits: exact


def _remove_ambiguous_halves(x: torch.Tensor) -> None:
    """Move +-absmax/2 one bf16 step toward zero in rows where absmax / 127 is not a power of two."""
    for part in x.split(_CHUNK_TOKENS):
        _remove_in(part)


def _remove_in(x: torch.Tensor) -> None:
    mag = x.float().abs()
    absmax = mag.amax(dim=-1, keepdim=True)
    mantissa, _ = torch.frexp(absmax.double() / QMAX)
    inexact = (mantissa != 0.5) & (absmax > 0)
    bad = (mag == absmax / 2) & inexact
    bits = x.view(torch.int16)
    bits.sub_(bad.to(torch.int16))  # one step less magnitude, either sign (sign-magnitude bits)


def quantize_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """q (int8) and s (float64 holding the fp32 value) of every row of x [tokens, heads, head_dim],
    _CHUNK_TOKENS tokens at a time (a float64 copy of a 2^31-element input is not needed)."""
    parts = [_quantize(part) for part in x.split(_CHUNK_TOKENS)]
    return torch.cat([q for q, _ in parts]), torch.cat([s for _, s in parts])


def _quantize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    absmax = x.double().abs().amax(dim=-1)
    s = (absmax / QMAX).float().double()  # fp32 rounding of the exact quotient (no double rounding)
    safe = torch.where(s > 0, s, torch.ones_like(s))
    q = torch.round(x.double() / safe[..., None]).clamp_(-QMAX, QMAX)  # torch.round: half to even
    q = torch.where(s[..., None] > 0, q, torch.zeros_like(q))
    return q.to(torch.int8), s


def _scatter(
    q: torch.Tensor, s: torch.Tensor, slot_mapping: torch.Tensor, num_blocks: int, block_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    heads, head_dim = q.shape[1], q.shape[2]
    live = slot_mapping >= 0
    where = slot_mapping[live].long()
    cache = torch.zeros(num_blocks * block_size, heads, head_dim, dtype=q.dtype, device=q.device)
    scales = torch.zeros(num_blocks * block_size, heads, dtype=s.dtype, device=s.device)
    cache[where] = q[live]
    scales[where] = s[live]
    return cache.view(num_blocks, block_size, heads, head_dim), scales.view(num_blocks, block_size, heads)


def reference(
    key: torch.Tensor,
    value: torch.Tensor,
    slot_mapping: torch.Tensor,
    num_blocks: int,
    block_size: int,
    num_kv_heads: int,
    head_dim: int,
    padding: int,
) -> dict[str, torch.Tensor]:
    """The rule in float64 (exact quotients), scales as the fp32 values they must be."""
    kq, ks = quantize_rows(key)
    vq, vs = quantize_rows(value)
    k_cache, k_scale = _scatter(kq, ks, slot_mapping, num_blocks, block_size)
    v_cache, v_scale = _scatter(vq, vs, slot_mapping, num_blocks, block_size)
    return {"k_cache": k_cache, "v_cache": v_cache, "k_scale": k_scale, "v_scale": v_scale}


def baseline(
    key: torch.Tensor,
    value: torch.Tensor,
    slot_mapping: torch.Tensor,
    num_blocks: int,
    block_size: int,
    num_kv_heads: int,
    head_dim: int,
    padding: int,
) -> dict[str, torch.Tensor]:
    """Plain PyTorch in fp32 (what a server without a fused kernel runs): the point a
    submission's speedup is measured from."""
    live = slot_mapping >= 0
    where = slot_mapping[live].long()
    out = {}
    for name, x in (("k", key), ("v", value)):
        xf = x[live].float()
        s = xf.abs().amax(dim=-1) / QMAX
        q = torch.round(xf / torch.where(s > 0, s, torch.ones_like(s))[..., None]).clamp_(-QMAX, QMAX)
        cache = torch.empty(num_blocks * block_size, num_kv_heads, head_dim, dtype=torch.int8, device=x.device)
        scales = torch.empty(num_blocks * block_size, num_kv_heads, dtype=torch.float32, device=x.device)
        cache[where] = q.to(torch.int8)
        scales[where] = s
        out[f"{name}_cache"] = cache.view(num_blocks, block_size, num_kv_heads, head_dim)
        out[f"{name}_scale"] = scales.view(num_blocks, block_size, num_kv_heads)
    return out
