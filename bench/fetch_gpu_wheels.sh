#!/usr/bin/env bash
# The GPU host's image has torch/triton/cupy but no Celery. bench/pipeline_gpu.py and a real
# judge worker there need it: fetch the wheels here (the dev machine reaches PyPI), carry `.whl`
# with the device call, and install them there first:
#   python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
# Versions match requirements/judge.txt (celery[redis]==5.7.0) as resolved for the web venv.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .whl celery==5.7.0 kombu==5.7.0 billiard==4.3.2 vine==5.1.0 amqp==5.4.2 click-didyoumean==0.3.1 \
  click-plugins==1.1.1.2 click-repl==0.4.1 tzlocal==5.4.5 prompt_toolkit==3.0.53 wcwidth==0.9.4 redis==8.1.0
ls .whl
