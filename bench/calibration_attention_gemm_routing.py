"""Calibration variants of flash_attention, decode_gemm and moe_routing, for
bench/calibrate_tolerances.py (registered through bench/calibration_catalog.py): per problem,
results a judge must accept ("other") and results one precision step lower, or one classic mistake
away, that it must refuse ("lower"), computed from the judge's own inputs on the CPU.

A variant's result is a tensor (the problem's first output) or a dict of outputs by name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

Results = dict[str, Any]
Variants = Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[Results, Results]]
LOG2E = 1.4426950408889634


def to_bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


def to_e4m3(x: torch.Tensor) -> torch.Tensor:
    return x.float().clamp(-448.0, 448.0).to(torch.float8_e4m3fn).float()


def ident(x: torch.Tensor) -> torch.Tensor:
    return x


# ---------------------------------------------------------------------------------------------
# flash_attention


def _flash(
    inp: dict[str, torch.Tensor],
    sizes: dict[str, int],
    *,
    rows: int = 64,
    cols: int = 64,
    operands: Callable[[torch.Tensor], torch.Tensor] = ident,
    scores: Callable[[torch.Tensor], torch.Tensor] = ident,
    probs: Callable[[torch.Tensor], torch.Tensor] = ident,
    row_sum: Callable[[torch.Tensor], torch.Tensor] = ident,
    prescale_q: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> torch.Tensor:
    """The forward pass as flash kernels run it, in fp32: query tiles of `rows`, key tiles of
    `cols`, an online softmax in the exp2 domain (scale and log2(e) folded into one multiplier),
    `probs` applied to P before P @ V, `row_sum` to the running sum after each update."""
    q, k, v = (operands(inp[name].float()) for name in ("q", "k", "v"))
    seq, head_dim = q.shape[2], q.shape[3]
    mult = LOG2E / math.sqrt(head_dim)
    if prescale_q is not None:  # q * scale * log2(e) rounded before the product (a shortcut)
        q, mult = prescale_q(q * mult), 1.0
    causal = sizes["mask_mode"] == 2
    out = torch.empty(q.shape)
    for r0 in range(0, seq, rows):
        qi = q[:, :, r0 : r0 + rows]
        query = torch.arange(r0, r0 + qi.shape[2])
        run_max = torch.full((*qi.shape[:3], 1), -math.inf)
        run_sum = torch.zeros_like(run_max)
        acc = torch.zeros(qi.shape)
        for c0 in range(0, int(query[-1]) + 1 if causal else seq, cols):
            s = scores(qi @ k[:, :, c0 : c0 + cols].transpose(-1, -2)) * mult
            if causal:
                key = torch.arange(c0, c0 + s.shape[-1])
                s = s.masked_fill(key[None, :] > query[:, None], -math.inf)
            new_max = torch.maximum(run_max, s.amax(-1, keepdim=True))
            alpha = torch.exp2(run_max - new_max)
            p = torch.exp2(s - new_max)
            run_sum = row_sum(run_sum * alpha + p.sum(-1, keepdim=True))
            acc = acc * alpha + probs(p) @ v[:, :, c0 : c0 + cols]
            run_max = new_max
        out[:, :, r0 : r0 + rows] = acc / run_sum
    return to_bf16(out)


def _flash_attention(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    run = lambda **kw: _flash(inp, sizes, **kw)  # noqa: E731
    q, k, v = (inp[name].float() for name in ("q", "k", "v"))
    causal = sizes["mask_mode"] == 2
    other = {
        "fp32 softmax over whole rows (CPU torch)": to_bf16(
            torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        ),
        "online fp32, fp32 P, tiles 32 x 32": run(rows=32, cols=32),
        "online fp32, bf16 P for P @ V, tiles 64 x 64": run(probs=to_bf16),
        "online fp32, bf16 P, tiles 128 x 32": run(rows=128, cols=32, probs=to_bf16),
    }
    lower = {
        "e4m3 q, k, v": run(operands=to_e4m3, probs=to_bf16),
        "scores rounded to bf16": run(scores=to_bf16, probs=to_bf16),
        "e4m3 P for P @ V": run(probs=to_e4m3),
        "running row sum kept in bf16 (info)": run(cols=32, probs=to_bf16, row_sum=to_bf16),
        "q * scale rounded to bf16 before q k^T (info)": run(probs=to_bf16, prescale_q=to_bf16),
    }
    return other, lower


# ---------------------------------------------------------------------------------------------
# decode_gemm


def _decode_gemm(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    a, w = inp["a"].cpu().float(), inp["w"].cpu().float()
    k = a.shape[1]

    def split(parts: int, partial: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
        step = -(-k // parts)
        return sum(partial(a[:, s : s + step] @ w[:, s : s + step].T) for s in range(0, k, step))

    def blocked(chunk: int, acc_round: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
        acc = torch.zeros(a.shape[0], w.shape[0])
        for s in range(0, k, chunk):
            acc = acc_round(acc + a[:, s : s + chunk] @ w[:, s : s + chunk].T)
        return acc

    other = {
        "fp32 accumulate (CPU GEMM)": to_bf16(a @ w.T),
        "fp32 k-chunks of 32 in order": to_bf16(blocked(32, ident)),
        "split-K 8, fp32 partials summed": to_bf16(split(8, ident)),
    }
    lower = {
        "split-K 4, partials rounded to bf16": to_bf16(split(4, to_bf16)),
        "split-K 8, partials rounded to bf16": to_bf16(split(8, to_bf16)),
        "bf16 accumulator (k-chunks of 16)": to_bf16(blocked(16, to_bf16)),
        "e4m3 weights, fp32 accumulate": to_bf16(a @ to_e4m3(w).T),
    }
    return other, lower


# ---------------------------------------------------------------------------------------------
# moe_routing


def _serial_sum(x: np.ndarray) -> np.ndarray:
    """One fp32 accumulator per row, added strictly in order (one thread per token)."""
    return np.add.accumulate(x, axis=1, dtype=np.float32)[:, -1:]


def _lane_tree_sum(x: np.ndarray, lanes: int = 32) -> np.ndarray:
    """32 lanes each summing every 32nd value in order, then a shuffle tree (a warp per token)."""
    pad = (-x.shape[1]) % lanes
    parts = np.concatenate([x, np.zeros((x.shape[0], pad), np.float32)], axis=1).reshape(x.shape[0], -1, lanes)
    s = np.add.accumulate(parts, axis=1, dtype=np.float32)[:, -1]
    while s.shape[1] > 1:
        s = s[:, : s.shape[1] // 2] + s[:, s.shape[1] // 2 :]
    return s[:, :1]


def _moe_routing(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[Results, Results]:
    x = inp["logits"].cpu()
    experts, top_k = sizes["experts"], sizes["top_k"]
    xs = x.numpy()
    order = torch.sort(x, dim=1, descending=True, stable=True).indices[:, :top_k]
    shifted = xs - xs.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    e2 = np.exp2(shifted * np.float32(LOG2E))
    lse = (xs.max(axis=1, keepdims=True) + np.log(_serial_sum(e))).astype(np.float32)

    def weights(p: np.ndarray | torch.Tensor, ids: torch.Tensor = order) -> dict[str, torch.Tensor]:
        t = p if isinstance(p, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(p))
        return {"topk_weights": torch.gather(t.float(), 1, ids)}

    # Integer mistakes, each against the reference's own construction.
    flat = order.reshape(-1)
    counts = torch.bincount(flat, minlength=experts)
    reversed_ties = torch.sort(x.flip(1), dim=1, descending=True, stable=True).indices[:, :top_k]
    reversed_ties = experts - 1 - reversed_ties  # equal logits: the higher expert id first
    by_expert = torch.sort(flat, stable=True).indices
    newest_first = torch.sort(flat * flat.numel() - torch.arange(flat.numel()), stable=True).indices
    other = {
        "fp32 torch.softmax (CPU)": weights(torch.softmax(x, dim=1)),
        "exp, one serial sum per token, divide": weights(e / _serial_sum(e)),
        "exp2, serial sum, times 1 / sum": weights(e2 * (np.float32(1.0) / _serial_sum(e2))),
        "exp2, 32 lanes then a shuffle tree": weights(e2 / _lane_tree_sum(e2)),
        "exp(x - lse), lse in fp32": weights(np.exp(xs - lse)),
        "ids, counts, offsets, permutation by stable sorts": {
            "topk_ids": order.int(),
            "expert_counts": counts.int(),
            "expert_offsets": (torch.cumsum(counts, 0) - counts).int(),
            "permutation": by_expert.int(),
        },
    }
    lower = {
        "exp rounded to bf16": weights(to_bf16(torch.from_numpy(e)).numpy() / _serial_sum(e)),
        "exp in fp16": weights(e.astype(np.float16).astype(np.float32) / _serial_sum(e)),
        "bf16 logits": weights(
            torch.softmax(to_bf16(x), dim=1),
            torch.sort(to_bf16(x), dim=1, descending=True, stable=True).indices[:, :top_k],
        ),
        "weights renormalized over the k": weights(
            torch.softmax(torch.gather(x, 1, order), dim=1), torch.arange(top_k).expand(x.shape[0], top_k)
        ),
        "equal logits: higher expert id first": {"topk_ids": reversed_ties.int()},
        "inclusive offsets": {"expert_offsets": torch.cumsum(counts, 0).int()},
        "permutation newest first within an expert": {"permutation": newest_first.int()},
    }
    return other, lower


FLASH = dict(batch=1, heads=2)
# slug -> (variants, small sizes, large sizes)
PLANS: dict[str, tuple[Variants, tuple[dict[str, int], ...], tuple[dict[str, int], ...]]] = {
    "flash_attention": (
        _flash_attention,
        (
            dict(batch=2, heads=3, seq=37, head_dim=64, mask_mode=2),
            dict(batch=1, heads=2, seq=256, head_dim=128, mask_mode=1),
            dict(batch=1, heads=1, seq=1024, head_dim=64, mask_mode=2),
        ),
        (dict(seq=4096, head_dim=128, mask_mode=2, **FLASH), dict(seq=2048, head_dim=64, mask_mode=1, **FLASH)),
    ),
    "decode_gemm": (
        _decode_gemm,
        (dict(m=5, n=7, k=13), dict(m=3, n=61, k=1000), dict(m=16, n=256, k=4096), dict(m=64, n=128, k=8192)),
        (dict(m=64, n=1024, k=16384), dict(m=1, n=4096, k=8192)),
    ),
    "moe_routing": (
        _moe_routing,
        (
            dict(tokens=1000, experts=3, top_k=3),
            dict(tokens=4096, experts=256, top_k=8),
            dict(tokens=2048, experts=512, top_k=8),
        ),
        (dict(tokens=65536, experts=256, top_k=1), dict(tokens=8192, experts=512, top_k=8)),
    ),
}


# ---------------------------------------------------------------------------------------------
# flash_attention's long causal rows: bench/calibrate_tolerances.py runs short sequences only.


def long_causal_rows(seq: int, head_dim: int, seeds: tuple[int, ...] = (11, 12, 13, 14)) -> list[str]:
    """Share of the tolerance that bf16 (and e4m3) P use on one head of a long causal sequence.

    The first rows see few keys, so one bf16-rounded probability moves their output the most,
    while the rms of the whole output is set by the later rows. To stay cheap on a CPU it forms the
    first 512 rows and every 61st after them; the rms is taken over the later rows (what dominates
    a whole output's). P is rounded relative to the row's final maximum (one key block): the
    rounding a flash kernel makes, block by block, is of the same size.
    """
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "reference_kernels" / "flash_attention" / "reference.py"
    module_spec = importlib.util.spec_from_file_location("flash_attention_reference", path)
    assert module_spec is not None and module_spec.loader is not None
    ref = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(ref)
    from judge.spec import load

    tol = load("flash_attention").tolerance
    lines = []
    for seed in seeds:
        inp = ref.generate_inputs(seed, batch=1, heads=1, seq=seq, head_dim=head_dim, mask_mode=2)
        q, k, v = (inp[name][0, 0] for name in ("q", "k", "v"))
        rows = torch.cat([torch.arange(0, min(512, seq)), torch.arange(512, seq, 61)])
        future = torch.arange(seq)[None, :] > rows[:, None]
        exact = (q[rows].double() @ k.double().T / math.sqrt(head_dim)).masked_fill(future, -math.inf)
        expected = torch.softmax(exact, dim=-1) @ v.double()
        rms = (
            float(expected[min(512, seq) :].square().mean().sqrt())
            if seq > 512
            else float(expected.square().mean().sqrt())
        )
        s = (q[rows].float() @ k.float().T * (LOG2E / math.sqrt(head_dim))).masked_fill(future, -math.inf)
        p = torch.exp2(s - s.amax(dim=-1, keepdim=True))
        total = p.sum(dim=-1, keepdim=True)
        line = f"seq {seq} head_dim {head_dim} seed {seed}: rms {rms:.3g}"
        for name, rounding in (("bf16 P", to_bf16), ("e4m3 P", to_e4m3)):
            got = to_bf16((rounding(p) @ v.float()) / total).double()
            bound = tol.atol + tol.atol_rms * rms + tol.rtol * expected.abs()
            line += f", {name} {float(((got - expected).abs() / bound).max()):.3g}"
        lines.append(line)
    return lines


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
    seq_arg, dim_arg = (int(a) for a in sys.argv[1:3]) if len(sys.argv) >= 3 else (4096, 64)
    print("\n".join(long_causal_rows(seq_arg, dim_arg)))
