#!/usr/bin/env bash
# Gridstride's two commands:
#   ./gs start   install what is missing, migrate, sync problems, create the demo account, serve
#                http://127.0.0.1:8000 with a judge worker (GPU when present, else CPU, unranked)
#                the way a deployment does: DEBUG off, gunicorn, static files through WhiteNoise,
#                the site's own error pages, a secret key generated once and kept in var/secret_key
#   ./gs start --dev   the same with DEBUG on and Django's autoreloading development server
#   ./gs test    run the whole test suite (linters, web tests, judge and sandbox tests)
# Both are idempotent; a second run skips installs whose requirements did not change.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
export PYTHONDONTWRITEBYTECODE=1

find_python() {  # find_python MINOR -> path of a python3.MINOR interpreter
  local minor=$1 candidate
  for candidate in "python3.$minor" "$HOME/.pyenv/versions/3.$minor"*/bin/python3 "/usr/bin/python3.$minor" "/usr/local/bin/python3.$minor"; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] < (3, '"$minor"'))' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  return 1
}

ensure_venv() {  # ensure_venv NAME PYTHON REQUIREMENTS...
  local name=$1 python=$2; shift 2
  local venv="$ROOT/.venv/$name" stamp
  stamp=$(cat "$@" | sha256sum | cut -c1-16)
  if [[ -f "$venv/.stamp" && "$(cat "$venv/.stamp")" == "$stamp" ]]; then return 0; fi
  echo "gs: installing the $name environment (.venv/$name)…" >&2
  [[ -x "$venv/bin/python" ]] || "$python" -m venv "$venv"
  local args=()
  for req in "$@"; do args+=(-r "$req"); done
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${args[@]}"
  echo "$stamp" > "$venv/.stamp"
}

setup_web() {
  local py; py=$(find_python 12) || { echo "gs: Python 3.12+ is needed for the site (Django 6.1)" >&2; exit 1; }
  ensure_venv web "$py" requirements/web.txt requirements/dev.txt
}

setup_judge() {
  # A GPU host's system python already has CUDA builds of torch/triton/cupy: use it as it is.
  if command -v nvidia-smi >/dev/null 2>&1 && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    JUDGE_PY=$(command -v python3); return 0
  fi
  local py; py=$(find_python 11) || { echo "gs: Python 3.11+ is needed for the judge" >&2; exit 1; }
  ensure_venv judge "$py" requirements/judge.txt requirements/judge-dev.txt
  JUDGE_PY="$ROOT/.venv/judge/bin/python"
}

web() { "$ROOT/.venv/web/bin/python" "$@"; }

PIDS=()
DEV_SERVER=""
stop_all() {  # TERM every process ./gs start launched, then KILL what is left after 10 s
  trap - INT TERM EXIT
  echo; echo "gs: stopping…" >&2
  [[ ${#PIDS[@]} -gt 0 ]] || return 0
  # The autoreloader serves from a child process of its own: stop that child too.
  [[ -z "$DEV_SERVER" ]] || pkill -TERM -P "$DEV_SERVER" 2>/dev/null || true
  kill -TERM "${PIDS[@]}" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "${PIDS[@]}" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "${PIDS[@]}" 2>/dev/null || true
  wait "${PIDS[@]}" 2>/dev/null || true
}

ensure_secret_key() {  # a local key, made once and kept private under var/ (never in the tree)
  local var="${GRIDSTRIDE_VAR_DIR:-$ROOT/var}" key
  key="$var/secret_key"
  mkdir -p "$var"
  if [[ ! -s "$key" ]]; then
    (umask 077; web -c 'import secrets; print(secrets.token_urlsafe(50))' > "$key")
  fi
  export SECRET_KEY_FILE="$key"
}

cmd_start() {
  local dev=0
  case "${1:-}" in
    --dev) dev=1; shift ;;
    "") ;;
    *) echo "usage: ./gs start [--dev]" >&2; exit 2 ;;
  esac
  setup_web; setup_judge
  if (( dev )); then
    export DEBUG=1
  else
    export DEBUG=0
    [[ -n "${SECRET_KEY:-}" || -n "${SECRET_KEY_FILE:-}" ]] || ensure_secret_key
    export ALLOWED_HOSTS="${ALLOWED_HOSTS:-127.0.0.1,localhost}"
    # Plain HTTP on this machine: cookies marked Secure would not come back over http://.
    export SECURE_COOKIES="${SECURE_COOKIES:-0}"
  fi
  web manage.py migrate --no-input -v0
  web manage.py sync_problems
  web manage.py ensure_demo_user
  (( dev )) || web manage.py collectstatic --no-input -v0
  trap stop_all INT TERM EXIT
  (cd platform && exec "$ROOT/.venv/web/bin/celery" -A gridstride worker -Q web -B --concurrency 1 --loglevel WARNING \
      --schedule "${GRIDSTRIDE_VAR_DIR:-$ROOT/var}/celerybeat-schedule") &
  PIDS+=($!)
  "$JUDGE_PY" -m judge worker &
  PIDS+=($!)
  local addr="127.0.0.1:${PORT:-8000}"
  if (( dev )); then
    echo "gs: serving http://$addr in development mode (DEBUG on, reloads on code changes; Ctrl-C stops everything)" >&2
    # Started directly (not through the `web` function) so the pid is the server's own.
    "$ROOT/.venv/web/bin/python" manage.py runserver "$addr" &
    DEV_SERVER=$!
  else
    echo "gs: serving http://$addr as a deployment does (DEBUG off; ./gs start --dev for development; Ctrl-C stops everything)" >&2
    "$ROOT/.venv/web/bin/gunicorn" --chdir platform --pythonpath "$ROOT" --bind "$addr" --workers 2 --threads 4 \
        --access-logfile - --error-logfile - gridstride.wsgi &
  fi
  PIDS+=($!)
  wait -n "${PIDS[@]}" || true
}

cmd_test() {
  setup_web; setup_judge
  export DEBUG="${DEBUG:-1}"  # the test settings use the development secret key
  local status=0
  echo "== lint: ruff, mypy" >&2
  "$ROOT/.venv/web/bin/ruff" check . || status=1
  "$ROOT/.venv/web/bin/ruff" format --check . >/dev/null || { echo "gs: ruff format would change files (run: .venv/web/bin/ruff format .)" >&2; status=1; }
  (DEBUG=1 MYPYPATH=platform "$ROOT/.venv/web/bin/mypy" platform judge sandbox) || status=1
  # The suites run side by side: each keeps about one core busy (the judge's waits on its
  # sandboxed children, the site's on its database and workers, the browser tests on Chromium and
  # the stacks they start), so together they take about the longest one's time. With no
  # arguments the browser tests (tests/e2e: every one starts its own site, workers and SQLite
  # database) are a part beside the site's other tests; given arguments, the judge's and
  # the site's suites each get them as they are. The background parts' output is kept and
  # printed, each under its heading, once the site's tests are done.
  local -a names=() pids=() logs=()
  background() {  # background NAME COMMAND...: run a part with its output kept
    local log; log=$(mktemp "${TMPDIR:-/tmp}/gridstride-tests.XXXXXX")
    "${@:2}" >"$log" 2>&1 &
    names+=("$1"); pids+=($!); logs+=("$log")
  }
  trap 'kill "${pids[@]}" 2>/dev/null; rm -f "${logs[@]}"; exit 130' INT TERM
  if (( $# == 0 )); then
    # The judge's compile checks (nvcc and ptxas on every CUDA file of the catalog) are a part of
    # their own, so that the judge's share is not one long tail after the others end.
    local compile_checks=(tests/judge/test_problem_content.py tests/judge/test_ladder.py tests/judge/test_expert_resources.py)
    background "judge tests: the catalog's content and compile checks" \
      "$JUDGE_PY" -m pytest -c pytest-judge.ini "${compile_checks[@]}"
    background "judge and sandbox tests ($JUDGE_PY): the rest" \
      "$JUDGE_PY" -m pytest -c pytest-judge.ini "${compile_checks[@]/#/--ignore=}"
    background "browser tests (tests/e2e)" web -m pytest tests/e2e
    echo "== web tests (the judge's and the browser tests run beside them; their output follows)" >&2
    web -m pytest tests/web tests/test_architecture.py || status=$?
  else
    background "judge and sandbox tests ($JUDGE_PY)" "$JUDGE_PY" -m pytest -c pytest-judge.ini "$@"
    echo "== web tests (the judge's tests run beside them; their output follows)" >&2
    web -m pytest "$@" || status=$?
  fi
  local i part_status
  for i in "${!pids[@]}"; do
    part_status=0
    wait "${pids[$i]}" || part_status=$?
    echo "== ${names[$i]}" >&2
    cat "${logs[$i]}"; rm -f "${logs[$i]}"
    (( part_status == 0 )) || status=$part_status
  done
  trap - INT TERM
  return $status
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  test) shift; cmd_test "$@" ;;
  *) echo "usage: ./gs start [--dev] | ./gs test [pytest args]" >&2; exit 2 ;;
esac
