"""Calibrate the tolerance of every seed problem against results a judge must accept or refuse.

For each problem this computes, on the same inputs as the judge draws them:
- "other order": correct results that sum in another order than the fp64 reference (fp32
  pairwise, per-thread sequential sums then atomics, online softmax over tiles, split-K
  accumulation, flash-decoding with bf16 probabilities ...). The tolerance must pass them with a
  margin of at least 4x.
- "lower precision": results one precision step lower (bf16 or tf32-rounded inputs, bf16 or
  fp16 accumulators, fp8 e4m3 inputs for the bf16 problems). The tolerance must fail them.

The comparison is the judge's rule (judge/spec.py Tolerance): |got - ref| <= atol +
atol_rms * rms(ref) + rtol * |ref| elementwise, plus ||got - ref|| / ||ref|| <= rel_l2 when set;
non-finite values never match. `ratio` below is how much of the tolerance a result uses: the
largest elementwise |got - ref| / bound (and rel_l2 / its limit); a result passes iff ratio <= 1,
and the margin of a passing result is 1 / ratio.

    .venv/judge/bin/python bench/calibrate_tolerances.py                 # CPU, moderate sizes
    python3 bench/calibrate_tolerances.py --device cuda --large           # on the GPU host
    ... --markdown docs/tolerances.md                                     # rewrite the table
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.calibration_catalog import CATALOG_PLANS  # noqa: E402
from bench.calibration_inference import INFERENCE_PLANS  # noqa: E402
from judge import spec  # noqa: E402  (stdlib-only loader)
from judge.harness.common.tensors import tolerance_ratio  # noqa: E402

REQUIRED_MARGIN = 4.0
SEEDS = (11, 12, 13)


# ---------------------------------------------------------------------------------------------
# The judge's comparison rule.


def within_tolerance(got: torch.Tensor, ref: torch.Tensor, tol: spec.Tolerance) -> bool:
    return tolerance_ratio(got, ref, tol) <= 1.0


# ---------------------------------------------------------------------------------------------
# Rounding helpers (emulate lower precisions on any device).


def round_mantissa(x: torch.Tensor, bits: int) -> torch.Tensor:
    """Round fp32 values to `bits` explicit mantissa bits, nearest-even (tf32: bits=10)."""
    x = x.float().contiguous()
    shift = 23 - bits
    i = x.view(torch.int32)
    lsb = (i >> shift) & 1
    i = (i + ((1 << (shift - 1)) - 1) + lsb) & ~((1 << shift) - 1)
    return i.view(torch.float32)


def to_bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


def to_e4m3(x: torch.Tensor) -> torch.Tensor:
    return x.float().clamp(-448.0, 448.0).to(torch.float8_e4m3fn).float()


def sequential_sum_np(rows: np.ndarray, dtype: type) -> np.ndarray:
    """Sum along axis 0 strictly in order, rounding every partial sum to `dtype`."""
    return np.add.accumulate(rows.astype(dtype), axis=0, dtype=dtype)[-1]


# ---------------------------------------------------------------------------------------------
# Variants per problem. Each returns {name: result}; results are on the CPU.


def _vector_add(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[dict, dict]:
    a, b = inp["a"].cpu(), inp["b"].cpu()
    other = {"fp32 a+b": a + b, "fp32 b+a": b + a}
    lower = {
        "tf32-rounded inputs": round_mantissa(a, 10) + round_mantissa(b, 10),
        "bf16 inputs and sum": to_bf16(to_bf16(a) + to_bf16(b)),
    }
    return other, lower


def _reduction(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[dict, dict]:
    x = inp["x"].cpu()
    n = x.numel()
    xs = x.numpy()

    def threads_then_atomics(threads: int, acc: type = np.float32, final: type = np.float32) -> torch.Tensor:
        # thread t sums x[t], x[t + T], ... in order (a grid-stride loop), then the partials
        # are added one after another (atomicAdd on one accumulator, in thread order).
        pad = (-n) % threads
        rows = np.concatenate([xs, np.zeros(pad, xs.dtype)]).reshape(-1, threads)
        partial = sequential_sum_np(rows, acc)
        return torch.tensor([float(sequential_sum_np(partial.astype(final), final))])

    other = {
        "fp32 pairwise (torch.sum)": x.sum().reshape(1),
        "fp32 reversed pairwise": x.flip(0).sum().reshape(1),
        "fp32 2^16 threads, then 2^16 atomics": threads_then_atomics(1 << 16),
        "fp32 1024 threads (4096 each), then atomics": threads_then_atomics(1024),
    }
    xb = to_bf16(x)
    # bf16 accumulation: blocks of 256 summed sequentially with bf16 partial sums, blocks in fp32.
    pad = (-n) % 256
    blocks = torch.cat([xb, xb.new_zeros(pad)]).reshape(-1, 256)
    acc = torch.zeros(blocks.shape[0])
    for j in range(256):
        acc = to_bf16(acc + blocks[:, j])
    lower = {
        "fp32 sum rounded to bf16": to_bf16(x.double().sum().float().reshape(1)),
        "bf16 per-block accumulators": acc.sum().reshape(1),
        "fp16 everywhere (pairwise)": x.half().sum(dtype=torch.float16).float().reshape(1),
        "tf32-rounded inputs, fp32 sum (info)": round_mantissa(x, 10).sum().reshape(1),
    }
    return other, lower


def _online_softmax(x: torch.Tensor, tile: int, use_reciprocal: bool) -> torch.Tensor:
    """Single-pass online softmax over column tiles in fp32, exp2 form (as GPU kernels do)."""
    log2e = torch.tensor(1.4426950408889634, dtype=torch.float32)
    m = torch.full((x.shape[0], 1), -math.inf)
    s = torch.zeros(x.shape[0], 1)
    for start in range(0, x.shape[1], tile):
        t = x[:, start : start + tile]
        m_new = torch.maximum(m, t.max(dim=1, keepdim=True).values)
        s = s * torch.exp2((m - m_new) * log2e) + torch.exp2((t - m_new) * log2e).sum(dim=1, keepdim=True)
        m = m_new
    e = torch.exp2((x - m) * log2e)
    return e * (1.0 / s) if use_reciprocal else e / s


def _softmax(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[dict, dict]:
    x = inp["x"].cpu()
    e = torch.exp(x - x.max(dim=1, keepdim=True).values)
    other = {
        "fp32 torch softmax": torch.softmax(x, dim=1),
        "fp32 online tiles of 1024, exp2": _online_softmax(x, 1024, use_reciprocal=False),
        "fp32 online tiles of 128, exp2, x * (1/s)": _online_softmax(x, 128, use_reciprocal=True),
    }
    lower = {
        "tf32-rounded inputs": torch.softmax(round_mantissa(x, 10), dim=1),
        "bf16 inputs": torch.softmax(to_bf16(x), dim=1),
        "exp rounded to bf16": to_bf16(e) / to_bf16(e).sum(dim=1, keepdim=True),
        "exp rounded to fp16": e.half().float() / e.half().float().sum(dim=1, keepdim=True),
    }
    return other, lower


def _matmul(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[dict, dict]:
    a, b = inp["a"].cpu().float(), inp["b"].cpu().float()
    k = a.shape[1]

    def blocked(chunk: int, acc_round: Callable[[torch.Tensor], torch.Tensor], reverse: bool = False) -> torch.Tensor:
        acc = torch.zeros(a.shape[0], b.shape[1])
        starts = list(range(0, k, chunk))
        for s in reversed(starts) if reverse else starts:
            acc = acc_round(acc + a[:, s : s + chunk] @ b[s : s + chunk])
        return acc

    ident = lambda t: t  # noqa: E731
    split = [a[:, s : s + k // 4 + 1] @ b[s : s + k // 4 + 1] for s in range(0, k, k // 4 + 1)]
    other = {
        "fp32 accumulate (cpu gemm)": to_bf16(a @ b),
        "fp32 k-chunks of 64, reversed": to_bf16(blocked(64, ident, reverse=True)),
        "fp32 split-K 4, partials summed": to_bf16(sum(reversed(split))),
    }
    e4 = to_e4m3(a) @ to_e4m3(b)
    lower = {
        "e4m3 inputs, fp32 accumulate": to_bf16(e4),
        "fp16 accumulator (k-chunks of 16)": to_bf16(blocked(16, lambda t: t.half().float())),
        "bf16 accumulator (k-chunks of 16)": to_bf16(blocked(16, to_bf16)),
    }
    return other, lower


def _decode_attention(
    inp: dict[str, torch.Tensor],
    sizes: dict[str, int],
    *,
    tile: int,
    partitions: int,
    qk_round: Callable[[torch.Tensor], torch.Tensor],
    kv_round: Callable[[torch.Tensor], torch.Tensor],
    p_round: Callable[[torch.Tensor], torch.Tensor],
) -> torch.Tensor:
    """Flash-decoding in fp32: online softmax over tiles inside partitions, then a combine."""
    hq, hk, d, bs = sizes["num_heads"], sizes["num_kv_heads"], sizes["head_dim"], sizes["block_size"]
    group = hq // hk
    q, kc, vc = inp["q"].cpu().float(), inp["k_cache"].cpu().float(), inp["v_cache"].cpu().float()
    table, lens = inp["block_table"].cpu().long(), inp["seq_lens"].cpu().tolist()
    out = torch.empty(sizes["num_seqs"], hq, d)
    scale = 1.0 / math.sqrt(d)
    for s, length in enumerate(lens):
        pages = table[s, : -(-length // bs)]
        k = kv_round(kc[pages].reshape(-1, hk, d)[:length])
        v = kv_round(vc[pages].reshape(-1, hk, d)[:length])
        qs = q[s].reshape(hk, group, d)
        part_len = -(-length // partitions)
        ms, ls, accs = [], [], []
        for p0 in range(0, length, part_len):
            m = torch.full((hk, group, 1), -math.inf)
            lsum = torch.zeros(hk, group, 1)
            acc = torch.zeros(hk, group, d)
            for t0 in range(p0, min(p0 + part_len, length), tile):
                t1 = min(t0 + tile, p0 + part_len, length)
                sc = qk_round(torch.einsum("hgd,lhd->hgl", qs, k[t0:t1]) * scale)
                m_new = torch.maximum(m, sc.max(dim=-1, keepdim=True).values)
                alpha = torch.exp(m - m_new)
                pr = torch.exp(sc - m_new)
                lsum = lsum * alpha + pr.sum(dim=-1, keepdim=True)
                acc = acc * alpha + torch.einsum("hgl,lhd->hgd", p_round(pr), v[t0:t1])
                m = m_new
            ms.append(m)
            ls.append(lsum)
            accs.append(acc)
        mt = torch.stack(ms).max(dim=0).values
        w = [torch.exp(mi - mt) for mi in ms]
        total = sum(wi * li for wi, li in zip(w, ls, strict=True))
        res = sum(wi * ai for wi, ai in zip(w, accs, strict=True)) / total
        out[s] = res.reshape(hq, d)
    return to_bf16(out)


def _paged_attention(inp: dict[str, torch.Tensor], sizes: dict[str, int]) -> tuple[dict, dict]:
    ident = lambda t: t  # noqa: E731
    run = lambda **kw: _decode_attention(inp, sizes, **kw)  # noqa: E731
    other = {
        "fp32, tiles of 16, one partition": run(tile=16, partitions=1, qk_round=ident, kv_round=ident, p_round=ident),
        "fp32, bf16 P for P@V, tiles of 64": run(
            tile=64, partitions=1, qk_round=ident, kv_round=ident, p_round=to_bf16
        ),
        "split-K 7 partitions, bf16 P": run(tile=32, partitions=7, qk_round=ident, kv_round=ident, p_round=to_bf16),
    }
    lower = {
        "e4m3 K/V cache": run(tile=64, partitions=1, qk_round=ident, kv_round=to_e4m3, p_round=to_bf16),
        "scores rounded to bf16 (info)": run(tile=64, partitions=1, qk_round=to_bf16, kv_round=ident, p_round=to_bf16),
        "e4m3 P for P@V (info)": run(tile=64, partitions=1, qk_round=ident, kv_round=ident, p_round=to_e4m3),
    }
    return other, lower


@dataclass(frozen=True)
class Plan:
    variants: Callable[[dict[str, torch.Tensor], dict[str, int]], tuple[dict, dict]]
    small: tuple[dict[str, int], ...]
    large: tuple[dict[str, int], ...]


PA = dict(num_heads=32, num_kv_heads=8, head_dim=128, block_size=16)
PLANS: dict[str, Plan] = {
    "vector_add": Plan(_vector_add, ({"n": 1 << 20},), ({"n": 1 << 26},)),
    "reduction": Plan(_reduction, ({"n": 1 << 20}, {"n": (1 << 22) + 3}), ({"n": 1 << 24}, {"n": 1 << 26})),
    "softmax": Plan(
        _softmax, ({"m": 64, "n": 4096}, {"m": 8, "n": 32768}), ({"m": 512, "n": 16384}, {"m": 64, "n": 262144})
    ),
    "matmul": Plan(
        _matmul,
        ({"m": 3, "n": 5, "k": 7}, {"m": 192, "n": 256, "k": 1024}, {"m": 64, "n": 64, "k": 8192}),
        ({"m": 512, "n": 512, "k": 8192},),
    ),
    "paged_attention": Plan(
        _paged_attention,
        (
            dict(num_seqs=2, num_heads=2, num_kv_heads=2, head_dim=32, block_size=4, max_blocks_per_seq=3),
            dict(num_seqs=6, max_blocks_per_seq=64, **PA),
            dict(num_seqs=2, max_blocks_per_seq=256, **PA),
        ),
        (dict(num_seqs=8, max_blocks_per_seq=512, **PA),),
    ),
}
PLANS.update({slug: Plan(*plan) for slug, plan in CATALOG_PLANS.items()})
PLANS.update({slug: Plan(*plan) for slug, plan in INFERENCE_PLANS.items()})


def load_reference(slug: str) -> ModuleType:
    path = spec.REFERENCE_DIR / slug / "reference.py"
    module_spec = importlib.util.spec_from_file_location(f"gridstride_reference_{slug}", path)
    assert module_spec and module_spec.loader
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


@dataclass
class Row:
    problem: str
    tolerance: spec.Tolerance
    kind: str  # "other" | "lower"
    variant: str
    max_abs_err: float
    max_ratio: float  # largest share of the tolerance used over all cases
    failed: int  # cases where the result was refused
    cases: int
    ok: bool


def calibrate(slug: str, device: str, large: bool) -> list[Row]:
    problem = spec.load(slug)
    ref_mod = load_reference(slug)
    plan = PLANS[slug]
    out_names = [t.name for t in problem.outputs]
    stats: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for sizes in plan.large if large else plan.small:
        for seed in SEEDS:
            inputs = ref_mod.generate_inputs(seed, device, **sizes)
            refs = {k: v.cpu() for k, v in ref_mod.reference(**inputs, **sizes).items()}
            other, lower = plan.variants(inputs, sizes)
            for kind, group in (("other", other), ("lower", lower)):
                for name, got in group.items():
                    # A variant gives the first output, or a dict of outputs: each is held to the
                    # tolerance, and the worst decides.
                    outs = got if isinstance(got, dict) else {out_names[0]: got}
                    err = max(float((g.double() - refs[k].double()).abs().max()) for k, g in outs.items())
                    ratio = max(tolerance_ratio(g, refs[k], problem.tolerance) for k, g in outs.items())
                    stats.setdefault((kind, name), []).append((err, ratio))
    rows = []
    for (kind, name), values in stats.items():
        errs, ratios = zip(*values, strict=True)
        failed = sum(r > 1.0 for r in ratios)
        # A kernel is refused when any one case fails; "(info)" rows document lower-precision
        # roundings that average out and need not fail.
        ok = max(ratios) * REQUIRED_MARGIN <= 1.0 if kind == "other" else failed > 0 or name.endswith("(info)")
        rows.append(Row(slug, problem.tolerance, kind, name, max(errs), max(ratios), failed, len(ratios), ok))
    return rows


def fmt_tol(t: spec.Tolerance) -> str:
    parts = [f"atol={t.atol:g}", f"rtol={t.rtol:g}"]
    if t.atol_rms:
        parts.append(f"atol_rms={t.atol_rms:g}")
    if t.rel_l2 is not None:
        parts.append(f"rel_l2={t.rel_l2:g}")
    return ", ".join(parts)


def render(rows: list[Row], header: str) -> str:
    lines = [
        header,
        "",
        "| problem | tolerance | kind | result | max abs error | max share of tolerance used | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        share = "inf" if math.isinf(r.max_ratio) else f"{r.max_ratio:.3g}"
        if r.kind == "other":
            verdict = f"passes all {r.cases}, margin {1 / r.max_ratio:.1f}x" if r.max_ratio > 0 else "passes (exact)"
            verdict += "" if r.ok else " (MARGIN BELOW 4x)"
        else:
            verdict = f"fails {r.failed}/{r.cases} cases"
            if not r.ok:
                verdict += " (NOT CAUGHT)"
        lines.append(
            f"| {r.problem} | {fmt_tol(r.tolerance)} | {r.kind} | {r.variant} | {r.max_abs_err:.3g} | {share} | {verdict} |"
        )
    return "\n".join(lines) + "\n"


BEGIN, END = "<!-- calibration:begin -->", "<!-- calibration:end -->"


def write_between_markers(path: Path, table: str) -> None:
    """Replace the generated part of a document (between the markers), or write a new file."""
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        path.write_text(f"{head}{BEGIN}\n{table}{END}{tail}", encoding="utf-8")
    else:
        path.write_text(f"{BEGIN}\n{table}{END}\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--large", action="store_true", help="bigger sizes (GPU host)")
    parser.add_argument("--problems", nargs="*", default=list(PLANS))
    parser.add_argument("--markdown", type=Path, help="write the table to this file")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    rows: list[Row] = []
    for slug in args.problems:
        started = time.perf_counter()
        rows += calibrate(slug, args.device, args.large)
        print(f"{slug}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    sizes = "; ".join(
        f"{slug}: " + ", ".join(str(s) for s in (PLANS[slug].large if args.large else PLANS[slug].small))
        for slug in args.problems
    )
    header = f"Device {args.device}, seeds {SEEDS}, sizes {sizes}."
    table = render(rows, header)
    print(table)
    if args.markdown:
        write_between_markers(args.markdown, table)
    bad = [r for r in rows if not r.ok]
    for r in bad:
        print(f"NOT CALIBRATED: {r.problem} {r.kind} {r.variant}: ratio {r.max_ratio:.3g}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
