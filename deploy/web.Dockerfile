# The site, the Celery web worker and beat (one image, three commands in docker-compose.yml).
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 GRIDSTRIDE_VAR_DIR=/var/lib/gridstride
WORKDIR /app
COPY requirements/web.txt requirements/web.txt
RUN pip install --no-cache-dir -r requirements/web.txt
COPY manage.py ./
COPY platform platform
COPY judge/__init__.py judge/spec.py judge/protocol.py judge/
# The catalog hashes problems/ and reference_kernels/ (never runs them): judges must agree on it.
COPY problems problems
COPY reference_kernels reference_kernels
# Static files go to $GRIDSTRIDE_VAR_DIR/static, a volume: the one-shot `migrate` service collects them.
RUN useradd --system --uid 1000 --home /app gridstride \
    && mkdir -p /var/lib/gridstride && chown gridstride /var/lib/gridstride
USER gridstride
EXPOSE 8000
CMD ["gunicorn", "gridstride.wsgi:application", "--chdir", "platform", "--bind", "0.0.0.0:8000", "--workers", "3"]
