"""What Triton's CPU interpreter gets right: small kernels, one construct each, against torch.

A CPU judge host runs Triton submissions in the interpreter (TRITON_INTERPRET=1, CPU tensors).
This probe runs one small kernel per construct there and compares the result with what a GPU
computes, modelled in torch on the CPU (bf16 arithmetic correctly rounded, C semantics for integer
division, RTNE casts unless asked otherwise, fp32 accumulation in tl.dot, ...). Each row is

  right        the interpreter's result matches,
  wrong        it does not (the detail says how),
  needs-gpu    the interpreter cannot run it, and the judge says so (verdict `rejected`),
  error        it raised something else (a gap to close),
  same-error   Triton refuses it on a GPU too (a language rule, e.g. tl.exp on bf16).

    .venv/judge/bin/python bench/interpreter_probe.py            # with the judge's fixes
    .venv/judge/bin/python bench/interpreter_probe.py --raw      # Triton's interpreter as shipped
    .venv/judge/bin/python bench/interpreter_probe.py --json     # rows as JSON (the tests read it)

On a GPU host, `--device cuda` runs the same kernels compiled for the GPU against the same torch
model: every row `right` there is what proves the model is the GPU's behaviour.
docs/judging.md (section 8) holds the table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@dataclass
class Row:
    group: str
    construct: str
    status: str
    detail: str


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--raw", action="store_true", help="do not apply the judge's interpreter fixes")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("-k", action="append", default=[], help="only constructs whose name contains this (repeatable)")
    args = parser.parse_args()
    if args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    import torch

    import bench.interpreter_probe_cases as cases_module
    import bench.interpreter_probe_cases_more  # noqa: F401 - registers its cases

    if args.device == "cpu" and not args.raw:
        from judge.harness.child.triton_interpreter import install

        install()
    cases_module.DEVICE = torch.device(args.device)
    torch.manual_seed(0)
    rows = [
        run_case(group, construct, fn)
        for group, construct, fn in cases_module.CASES
        if not args.k or any(k in construct for k in args.k)
    ]
    if args.json:
        print(json.dumps([asdict(r) for r in rows]))
    else:
        print(markdown(rows))
    return 0


def run_case(group: str, construct: str, fn: Callable[[], str]) -> Row:
    import bench.interpreter_probe_cases as cases_module
    from judge.harness.child.triton_interpreter import NeedsGpu, needs_gpu_in

    try:
        detail = fn()
        return Row(group, construct, "right", detail)
    except cases_module.Wrong as exc:
        return Row(group, construct, "wrong", str(exc))
    except cases_module.SameError as exc:
        return Row(group, construct, "same-error", str(exc))
    except Exception as exc:
        found = needs_gpu_in(exc)
        if isinstance(found, NeedsGpu):
            return Row(group, construct, "needs-gpu", found.construct)
        return Row(group, construct, "error", f"{type(exc).__name__}: {str(exc)[:160]}")


def markdown(rows: list[Row]) -> str:
    lines = ["| group | construct | interpreter | detail |", "| --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r.group} | {r.construct} | {r.status} | {r.detail.replace('|', '/')} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
