#!/usr/bin/env bash
# The GPU trust boundary on the H200 (issue 14), in one device call: the GPU tests of parent-owned
# memory, then the judged forgery bound. Usage on the GPU host, from the repository root:
#   bench/gpu_trust.sh [tests] [forgery] [precision]      (logs under $OUT, or ./artifacts/gpu)
# FORGERY_PROBLEMS, FORGERY_FACTORS, FORGERY_REPEATS and PRECISION_PROBLEMS narrow the runs.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
OUT=${OUT:-artifacts/gpu}; mkdir -p "$OUT"
steps=("$@"); [[ ${#steps[@]} -gt 0 ]] || steps=(tests forgery)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used,memory.total --format=csv
for s in "${steps[@]}"; do
  t0=$SECONDS
  case $s in
    tests)
      # -s: each test's own printout reaches the log as it happens, so a step cut by its limit
      # still shows why a test failed (pytest's summary comes only at the end).
      timeout -k 10 "${TESTS_LIMIT:-300}" python3 -m pytest -c pytest-judge.ini tests/gpu/test_gpu_trust_holes.py \
        tests/gpu/test_gpu_paths.py -m gpu -q -s --timeout 120 --maxfail 4 -rA --durations 10 \
        -k "${TESTS_K:-trust or honest_triton or side_stream or cached_replay or keyed_by or profiler or cupy_path or cuda_path_compiles or illegal or same_submission}" \
        > "$OUT/tests.log" 2>&1
      echo "--- tests rc=$? in $((SECONDS - t0))s"; grep -E "passed|failed|PASSED|FAILED|XFAIL|XPASS|Error" "$OUT/tests.log" | tail -40 ;;
    forgery)
      # shellcheck disable=SC2086
      timeout -k 10 "${FORGERY_LIMIT:-280}" python3 bench/judged_forgery_bound.py --device cuda \
        --problems ${FORGERY_PROBLEMS:-vector_add softmax} --factors ${FORGERY_FACTORS:-1.02 1.1 2 1000} \
        --repeats "${FORGERY_REPEATS:-1}" --json "$OUT/forgery.json" > "$OUT/forgery.log" 2>&1
      echo "--- forgery rc=$? in $((SECONDS - t0))s"; grep -v '^{' "$OUT/forgery.log" | tail -40 ;;
    precision)
      # shellcheck disable=SC2086
      timeout -k 10 "${PRECISION_LIMIT:-300}" python3 bench/precision.py --in-worker --runs "${PRECISION_RUNS:-5}" \
        --problems ${PRECISION_PROBLEMS:-vector_add softmax} > "$OUT/precision.log" 2>&1
      echo "--- precision rc=$? in $((SECONDS - t0))s"; tail -20 "$OUT/precision.log" ;;
    *) echo "unknown step $s" ;;
  esac
done
cp docs/benchmarks.md "$OUT/benchmarks.md" 2>/dev/null || true
true
