#!/usr/bin/env bash
# The three new catalog problems (issue 18, catalog part 1) on the GPU host: topk,
# matmul_bias_gelu, cross_entropy. One command from the repository root, under 8 minutes (each
# step has a hard limit; the limits add up to 460 s), logs and tables under $OUT (default
# ./artifacts/gpu_catalog_new); a short table is printed last.
#
#   bench/gpu_catalog_new.sh [step ...]      steps: info selftest experts (default: all three)
#
# info      GPU, driver, versions (nvidia-smi, python3, nvcc).                          ~5 s
# selftest  python3 -m judge selftest --quick topk matmul_bias_gelu cross_entropy: the corpus
#           and both experts, judged in benchmark mode (the GPU default) with the sandbox and
#           every rule, short timing (verdicts, not scores), as bench/gpu_suite.sh's corpus steps
#           do. To fit the time, the entries whose verdict the parent reaches before any kernel
#           runs (source-scan rejections, Python syntax errors, nvcc compile errors: 9 entries,
#           all judged on the CPU host already) are left out; FULL=1 judges them too. About 30
#           judgings of 8-15 s each (every judging waits for the next sandboxed process, ~7.5 s).
#           Limit SELFTEST_LIMIT (330 s); entries not reached are listed as such (judge them in a
#           second call: CATALOG_PROBLEMS="topk" bench/gpu_catalog_new.sh selftest).
# experts   python3 bench/expert_kernels.py for the three problems (as it is run for the seed
#           problems): expert_triton, expert_cuda and PyTorch's baseline on small odd and
#           gpu_only cases and every ranked shape, NaN/int-poisoned outputs, L2 flushed, checked
#           against the fp64 reference; % of speed of light against the measured copy bandwidth
#           (topk, cross_entropy) or torch.matmul on the same a and b (matmul_bias_gelu).
#           Limit EXPERTS_LIMIT (110 s). Table in $OUT/expert_kernels_new.md.
#
# Issue 19 added flash_attention, decode_gemm, moe_routing, kv_cache_int8, grouped_gemm,
# top_p_sampling, spec_decode_verify, w4a16_gemm, chunked_prefill_attention and fp8_gemm_scaled to
# the default list: 148 more judgings, too many for one call's limits. Run one call per problem
# set, each under 8 minutes:
#   CATALOG_PROBLEMS="topk matmul_bias_gelu cross_entropy swiglu" bench/gpu_catalog_new.sh
#   CATALOG_PROBLEMS="flash_attention" bench/gpu_catalog_new.sh   (14 judgings, then the experts)
#   CATALOG_PROBLEMS="decode_gemm" bench/gpu_catalog_new.sh       (13)
#   CATALOG_PROBLEMS="moe_routing" bench/gpu_catalog_new.sh       (15)
#   CATALOG_PROBLEMS="kv_cache_int8" bench/gpu_catalog_new.sh     (17: its 4 CUDA/CuPy accepted
#       entries and the CUDA expert run here for the first time; the gpu_only cases include a cache
#       past 2^31 elements)
#   CATALOG_PROBLEMS="grouped_gemm" bench/gpu_catalog_new.sh      (14: every CUDA/CuPy entry and
#       both experts run here for the first time; benchmark weights of 0.9-1.8 GiB)
#   CATALOG_PROBLEMS="top_p_sampling" bench/gpu_catalog_new.sh    (15: its 4 CUDA/CuPy accepted
#       entries and the CUDA expert run here for the first time)
#   CATALOG_PROBLEMS="spec_decode_verify" bench/gpu_catalog_new.sh (16: its 4 CUDA/CuPy accepted
#       entries and the CUDA expert, a thread-block cluster kernel, run here for the first time)
#   CATALOG_PROBLEMS="w4a16_gemm" bench/gpu_catalog_new.sh        (16: its 4 CUDA/CuPy accepted
#       entries and the CUDA expert run here for the first time)
#   CATALOG_PROBLEMS="chunked_prefill_attention" bench/gpu_catalog_new.sh   (14: every CUDA/CuPy
#       entry and both experts run here for the first time)
#   CATALOG_PROBLEMS="fp8_gemm_scaled" bench/gpu_catalog_new.sh   (15: its 4 CUDA/CuPy accepted
#       entries and the CUDA expert run here for the first time; the floor uses the new fp8 ceiling)
# The experts step compares flash_attention with torch's scaled_dot_product_attention on the same
# q, k, v, decode_gemm, moe_routing, kv_cache_int8, top_p_sampling and spec_decode_verify with the
# copy bandwidth, grouped_gemm with the faster of one torch.matmul per expert and
# torch._grouped_mm, w4a16_gemm's decode shapes with the copy bandwidth, its prefill shapes with torch.matmul on the dequantized weight,
# chunked_prefill_attention with the pages gathered into torch's fused attention under a mask, and
# fp8_gemm_scaled with the faster of torch._scaled_mm with and without fast accumulation
# (bench/expert_kernels.py).
#
# Files under $OUT: info.log, selftest.log, selftest_entries.json, experts.log,
# expert_kernels_new.md, summary.txt.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
OUT=${OUT:-artifacts/gpu_catalog_new}
mkdir -p "$OUT"
read -r -a PROBLEMS <<<"${CATALOG_PROBLEMS:-topk matmul_bias_gelu cross_entropy flash_attention decode_gemm moe_routing kv_cache_int8 grouped_gemm top_p_sampling w4a16_gemm chunked_prefill_attention spec_decode_verify fp8_gemm_scaled}"
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(info selftest experts)

step() {  # step NAME LIMIT CMD...
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    echo "=== $name (limit ${limit}s)"
    timeout -k 10 "$limit" "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    echo "--- $name rc=$rc in $((SECONDS - t0))s; tail:"
    tail -n "${TAIL:-15}" "$OUT/$name.log"
}

# The corpus entries the selftest will judge, in its order, and the --only filters that select them.
select_entries() {
    python3 - "$OUT/selftest_entries.json" "${FULL:-0}" "${PROBLEMS[@]}" <<'EOF'
import json, sys

sys.path.insert(0, "bench")
from gpu_selftest_parallel import decided_before_a_kernel
from judge import spec as specmod
from judge.selftest import corpus

out, full, slugs = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
entries = []
for problem in specmod.load_all()[0]:
    if problem.slug not in slugs:
        continue
    for label, path, sol in corpus(problem):
        if full or not decided_before_a_kernel(path, sol, problem):
            entries.append({"slug": problem.slug, "label": label, "language": sol.language, "expect": sol.expect})
json.dump(entries, open(out, "w"), indent=1)
print(" ".join(f"--only {label}" for label in dict.fromkeys(e["label"] for e in entries)))
EOF
}

summary() {
    python3 - "$OUT" <<'EOF'
import json, re, sys
from collections import defaultdict
from pathlib import Path

out = Path(sys.argv[1])
lines = []
entries_file, log_file = out / "selftest_entries.json", out / "selftest.log"
if entries_file.is_file() and log_file.is_file():
    entries = json.loads(entries_file.read_text())
    # The selftest prints one line per entry as it finishes, in the order of selftest_entries.json:
    # "ok LABEL -> VERDICT (...)" or "--- SLUG LABEL: expected X, got Y: message".
    results = []
    for line in log_file.read_text(errors="replace").splitlines():
        ok = re.match(r"^ok (\S+) -> (\w+)", line)
        bad = re.match(r"^--- (\S+) (\S+): expected (\w+), got (\w+)", line)
        if ok:
            results.append((ok.group(1), ok.group(2), True))
        elif bad:
            results.append((bad.group(2), bad.group(4), False))
    counts = defaultdict(lambda: [0, 0, 0, 0])  # entries, ok, unexpected, not reached
    notes = []
    for i, e in enumerate(entries):
        c = counts[e["slug"]]
        c[0] += 1
        if i < len(results) and results[i][0] == e["label"]:
            c[1 if results[i][2] else 2] += 1
            if not results[i][2]:
                notes.append(f"  UNEXPECTED {e['slug']} {e['label']}: expected {e['expect']}, got {results[i][1]}")
        else:
            c[3] += 1
            notes.append(f"  not reached {e['slug']} {e['label']}")
    lines.append("selftest (benchmark mode, --quick; the messages are in selftest.log)")
    lines.append(f"  {'problem':17} {'entries':>7} {'ok':>4} {'unexpected':>10} {'not reached':>11}")
    for slug, (n, good, bad, missing) in counts.items():
        lines.append(f"  {slug:17} {n:>7} {good:>4} {bad:>10} {missing:>11}")
    lines += notes
else:
    lines.append("selftest: no log")
table = out / "expert_kernels_new.md"
if table.is_file():
    text = table.read_text()
    rows = defaultdict(list)
    for row in text.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) >= 9 and cells[2] in ("expert_triton", "expert_cuda", "torch baseline"):
            rows[(cells[0], cells[2])].append(cells)
    lines.append("experts: the test cases, then per ranked shape the median us (% of speed of light, target met)")
    for (slug, kernel), group in rows.items():
        parts = []
        for cells in group:
            if cells[1].endswith("test cases"):
                parts.append(f"tests {cells[3]}")
            else:
                met = "" if cells[8] == "-" else f", {cells[8]}"
                wrong = "" if cells[3] == "ok" else f" {cells[3]}"
                parts.append(f"{cells[1]} {cells[4]} ({cells[6]}{met}){wrong}")
        lines.append(f"  {slug:17} {kernel:14} " + "; ".join(parts))
    lines += [f"  {r}" for r in text.splitlines() if r.startswith("Ceilings")]
else:
    lines.append("experts: no table (see experts.log)")
text = "\n".join(lines)
(out / "summary.txt").write_text(text + "\n")
print(text)
EOF
}

for s in "${steps[@]}"; do
    case $s in
        info) step info 30 bash -c 'nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv; python3 -c "import sys,torch,triton,numpy,cupy; print(sys.version.split()[0], torch.__version__, triton.__version__, numpy.__version__, cupy.__version__)"; nvcc --version | tail -1' ;;
        selftest)
            only=$(select_entries) || only=""
            # shellcheck disable=SC2086  # the --only pairs are meant to split
            step selftest "${SELFTEST_LIMIT:-330}" python3 -m judge selftest --quick $only "${PROBLEMS[@]}"
            ;;
        experts) step experts "${EXPERTS_LIMIT:-110}" python3 bench/expert_kernels.py --reps 20 --max-seconds 0.5 --out "$OUT/expert_kernels_new.md" "${PROBLEMS[@]}" ;;
        *) echo "unknown step $s" ;;
    esac
done
echo "=== summary"
summary
