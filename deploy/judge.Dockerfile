# A GPU judge worker: CUDA toolkit (nvcc for CUDA submissions, ncu for profile mode), the CUDA
# builds of torch/triton/cupy, and the judge + sandbox code. One container per GPU.
FROM nvidia/cuda:13.0.0-devel-ubuntu24.04

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 GRIDSTRIDE_VAR_DIR=/var/lib/gridstride \
    PIP_BREAK_SYSTEM_PACKAGES=1
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip util-linux \
    && rm -rf /var/lib/apt/lists/*
# The GPU host's versions (DESIGN.md section 9); the CPU-only pins of requirements/judge.txt are not
# used here. TORCH_INDEX_URL: PyTorch's wheel index for CUDA 13.0 (cu130), or a local mirror.
ARG TORCH_INDEX_URL
RUN test -n "$TORCH_INDEX_URL" || { echo "build with --build-arg TORCH_INDEX_URL=<cu130 wheel index>"; exit 1; } \
    && pip install --no-cache-dir torch==2.11.0 --index-url "$TORCH_INDEX_URL" \
    && pip install --no-cache-dir triton==3.6.0 cupy-cuda13x==14.2.0 "numpy<2.6" "celery[redis]==5.7.0"
WORKDIR /app
COPY judge judge
COPY sandbox sandbox
COPY problems problems
COPY reference_kernels reference_kernels
RUN mkdir -p /var/lib/gridstride
# Runs as root inside the container: the sandbox drops each submission to uid 65534 in fresh
# namespaces (see sandbox/README.md and the cap_add list in docker-compose.yml).
CMD ["python3", "-m", "judge", "worker"]
