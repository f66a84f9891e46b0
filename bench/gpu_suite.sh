#!/usr/bin/env bash
# The GPU batch: everything that needs the H200, in one call, logs under $OUT (or ./artifacts/gpu).
# Usage on the GPU host, from the repository root: bench/gpu_suite.sh [step ...]
# Steps: info validate ceilings starters judge_tests paths sandbox_tests sandbox_gpu experts corpus corpus_a corpus_b corpus_c cuda_experts selftest repeat_ab
#        precision_a precision_b precision_c overhead pipeline child_start side_stream compile_probe check_probe input_check_probe method
# Every judging pays the next sandboxed process's start-up (~7.5 s on the H200) when judged back
# to back, so budget ~10-20 s per judging: paths ~400 s, corpus_a (29 entries) ~380 s,
# corpus_b (28) ~350 s, corpus_c (13) ~180 s (2026-11-30: 8-31 s per entry),
# experts ~180 s, pipeline (PIPELINE_RUNS=3) ~150 s, precision ~200 s per problem.
# What is still owed on the H200 (after the runs of 2026-12-03, docs/benchmarks.md); run the calls
# back to back (the machine goes back 30 s after a call), carrying var/ladder_runs between them:
#   1. the ladders not yet judged (about 50 rungs, two calls; each call resumes where the last
#      stopped), then here: python3 bench/ladder.py --from-json var/ladder_runs/*.json
#        LADDER_SLUGS="vector_add reduction softmax sgemm transpose prefix_sum matvec layernorm \
#          rmsnorm_residual topk matmul_bias_gelu cross_entropy swiglu" bench/gpu_suite.sh ladders
#      and top_p_sampling again: its rungs 2-3 lack an overall % of speed of light (fixed since).
#   2. the corpus entries never judged on a GPU: bench/gpu_suite.sh selftest_retry selftest_kv
#      (RETRY_LIMIT=540 for the whole list, four processes at once).
#   3. bench/gpu_suite.sh experts19: the experts with the launch cover, and beside them the
#      candidates of bench/expert_candidates/ (fp8_gemm_scaled, w4a16_gemm, top_p_sampling,
#      moe_routing, kv_cache_int8, chunked_prefill_attention), written to beat experts below
#      their targets; a winner replaces its expert and its ladder is judged again (README there).
#   4. the refill beside the tests (docs/pipeline.md): PATHS_K=back_to_back bench/gpu_suite.sh paths
#      (the second of two judgings finds its child warm), and a ladder's timelines, "child
#      started" to "child ready", against the median 8.55 s of 2026-12-03 (bench/ladder.py --timelines).
#   5. GRIDSTRIDE_PARENT_MEMORY=1 bench/gpu_trust.sh tests (TESTS_LIMIT=300) and the crowded-out
#      GPU test in tests/gpu/test_gpu_paths.py.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
OUT=${OUT:-artifacts/gpu}; mkdir -p "$OUT"
steps=("$@"); [[ ${#steps[@]} -gt 0 ]] || steps=(info validate ceilings judge_tests sandbox_tests experts)
step() {  # step NAME TIMEOUT CMD...
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  echo "=== $name (limit ${limit}s)"
  timeout -k 10 "$limit" "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "--- $name rc=$rc in $((SECONDS - t0))s; tail:"; tail -n "${TAIL:-25}" "$OUT/$name.log"
}
for s in "${steps[@]}"; do
  case $s in
    info) step info 60 bash -c 'nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv; python3 -c "import sys,torch,triton,numpy,cupy; print(sys.version.split()[0], torch.__version__, triton.__version__, numpy.__version__, cupy.__version__)"; nvcc --version | tail -1; which ncu; unshare --version; ls /sys/fs/cgroup | head -30' ;;
    validate) step validate 120 python3 -m judge validate ;;
    ceilings) step ceilings 180 python3 -m judge ceilings ;;
    judge_tests) step judge_tests "${JUDGE_TESTS_LIMIT:-420}" python3 -m pytest -c pytest-judge.ini tests/gpu -m gpu -q --timeout 240 ;;
    paths) step paths "${PATHS_LIMIT:-420}" python3 -m pytest -c pytest-judge.ini tests/gpu/test_gpu_paths.py -m gpu -q --timeout 200 --durations=8 ${PATHS_K:+-k "$PATHS_K"} ;;
    sandbox_gpu) step sandbox_gpu 150 python3 -m pytest -c pytest-judge.ini tests/sandbox -m gpu -q --timeout 100 ;;
    corpus) step corpus "${CORPUS_LIMIT:-280}" python3 -m judge selftest --quick --time-cap 20 ;;
    corpus_a) step corpus_a "${CORPUS_LIMIT:-450}" python3 -m judge selftest --quick --time-cap 20 reduction softmax ;;
    corpus_b) step corpus_b "${CORPUS_LIMIT:-400}" python3 -m judge selftest --quick --time-cap 20 matmul paged_attention ;;
    # Only the two CUDA experts, through the judge (sandbox, profiler kernel list): ~60-100 s.
    # Every problem's starters completed as their TODOs say (issue 22): ~60 judgings.
    starters) step starters "${STARTERS_LIMIT:-560}" python3 -m judge selftest --quick --time-cap 20 --only _starter_completed ;;
    cuda_experts) step cuda_experts 140 python3 -m judge selftest --quick --time-cap 20 --only expert_cuda matmul paged_attention ;;
    corpus_c) step corpus_c "${CORPUS_LIMIT:-250}" python3 -m judge selftest --quick --time-cap 20 vector_add ;;
    sandbox_tests) step sandbox_tests 300 python3 -m pytest -c pytest-judge.ini tests/sandbox -q --timeout 120 ;;
    experts) step experts "${EXPERTS_LIMIT:-300}" python3 bench/expert_kernels.py --out "$OUT/expert_kernels_h200.md" ;;
    selftest) step selftest 540 python3 -m judge selftest ;;
    repeat_ab) step repeat_ab 300 bash -c 'for v in 1 0; do echo "GRIDSTRIDE_OUTPUTS_PER_SET=$v"; GRIDSTRIDE_OUTPUTS_PER_SET=$v python3 bench/repeat_probe.py vector_add triton reference_kernels/vector_add/expert_triton.py 4; done' ;;
    # Ten judgings per problem, back to back (2026-11-30, s per run): softmax 20, reduction 9,
    # matmul 21-23, vector_add 18, paged_attention 21; each step fits one device call.
    precision_a) step precision_a "${PRECISION_LIMIT:-420}" python3 bench/precision.py --in-worker --problems softmax reduction ;;
    precision_b) step precision_b "${PRECISION_LIMIT:-500}" python3 bench/precision.py --in-worker --problems matmul vector_add ;;
    precision_c) step precision_c "${PRECISION_LIMIT:-300}" python3 bench/precision.py --in-worker --problems paged_attention ;;
    precision_only) step precision_only "${PRECISION_LIMIT:-450}" python3 bench/precision.py --in-worker --problems $PRECISION_PROBLEMS ;;
    precision) step precision 580 python3 bench/precision.py ;;
    overhead) step overhead 300 python3 bench/sandbox_overhead.py --gpu 0 --jobs 20 --heavy-jobs 8 ;;
    pipeline) step pipeline 300 bash -c 'if [[ -d .whl ]]; then python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site; fi; python3 bench/pipeline_gpu.py --write --timeline --runs ${PIPELINE_RUNS:-5}' ;;
    child_start) step child_start 120 python3 bench/child_start_probe.py ;;
    side_stream) step side_stream 200 bash -c 'for cover in fill sleep; do echo "== GRIDSTRIDE_LAUNCH_COVER=$cover (sleep: expected to fail, the measurement behind docs/judging.md)"; GRIDSTRIDE_LAUNCH_COVER=$cover python3 -m pytest -c pytest-judge.ini tests/gpu/test_gpu_paths.py -m gpu -q --timeout 100 -k side_stream -rA; done' ;;
    compile_probe) step compile_probe 120 python3 bench/triton_compile_probe.py ;;
    input_check_probe) step input_check_probe 120 python3 bench/input_check_probe.py --device cuda --mib 1024 ;;
    check_probe) step check_probe 120 python3 bench/check_probe.py --problem softmax --repeat 3 ;;
    method) step method "${METHOD_LIMIT:-300}" bash -c 'e=reference_kernels/vector_add/expert_triton.py; for arm in "GRIDSTRIDE_LAUNCH_COVER=sleep triton $e" "GRIDSTRIDE_LAUNCH_COVER=fill triton $e" "GRIDSTRIDE_LAUNCH_COVER=0 triton $e" "GRIDSTRIDE_LAUNCH_COVER=0 pytorch problems/vector_add/solutions/pytorch_ok.py"; do set -- $arm; echo "== $arm"; env "$1" python3 bench/repeat_probe.py vector_add "$2" "$3" "${METHOD_RUNS:-3}"; done' ;;
    # Issue 19 on the H200, resumable across calls: each call judges the ladders' rungs no earlier
    # call judged (var/ladder_runs, carried from here to a fresh machine) until LADDERS_LIMIT.
    ladders) step ladders "${LADDERS_LIMIT:-530}" python3 bench/ladder.py --quick --resume var/ladder_runs ${LADDER_SLUGS:-} ; cp var/ladder_runs/*.json "$OUT"/ 2>/dev/null ;;
    selftest_retry) step selftest_retry "${RETRY_LIMIT:-300}" python3 bench/gpu_selftest_parallel.py --jobs 4 --limit "$(( ${RETRY_LIMIT:-300} - 20 ))" --out "$OUT/retry" --corpus fp8_gemm_scaled flash_attention w4a16_gemm spec_decode_verify top_p_sampling rope --starters cross_entropy embedding_gather histogram sgemm softmax decode_gemm chunked_prefill_attention grouped_gemm ;;
    selftest_kv) step selftest_kv "${KV_LIMIT:-200}" python3 bench/gpu_selftest_parallel.py --jobs 1 --limit "$(( ${KV_LIMIT:-200} - 15 ))" --out "$OUT/kv" --corpus kv_cache_int8 ;;
    experts19) step experts19 "${EXPERTS_LIMIT:-300}" python3 bench/expert_kernels.py --out "$OUT/expert_kernels_19.md" flash_attention fp8_gemm_scaled decode_gemm grouped_gemm w4a16_gemm rope kv_cache_int8 moe_routing top_p_sampling spec_decode_verify chunked_prefill_attention ;;
    *) echo "unknown step $s" ;;
  esac
done
cp docs/benchmarks.md "$OUT/benchmarks.md" 2>/dev/null || true
[[ -d var/bench ]] && cp -r var/bench "$OUT/var_bench"
[[ -d bench/results ]] && cp -r bench/results "$OUT/bench_results"  # copy back over the checkout's
true
