"""Settings, read from the environment. Bad values stop start-up with a message naming the variable.

Defaults make a laptop run need no server: an SQLite file and a broker kept in files under var/.
Production sets DATABASE_URL (PostgreSQL), CELERY_BROKER_URL (Redis) and SECRET_KEY[_FILE].
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from gridstride.lib.env import env_bool, env_int, env_list, env_str, read_secret

BASE_DIR = Path(__file__).resolve().parent.parent  # platform/
REPO_ROOT = BASE_DIR.parent
VAR_DIR = Path(env_str("GRIDSTRIDE_VAR_DIR", str(REPO_ROOT / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = read_secret("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "Set SECRET_KEY or SECRET_KEY_FILE (a development default exists only with DEBUG=1)."
        )
    SECRET_KEY = "dev-only-insecure-key-never-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "gridstride.accounts",
    "gridstride.catalog",
    "gridstride.submissions",
    "gridstride.leaderboards",
    "gridstride.assessments",
    "gridstride.contests",
    "gridstride.api",
    "gridstride.pages",
    # django-ninja: serves the API docs (Swagger UI) from its own static files, no CDN.
    "ninja",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # NUL, lone surrogates and undecodable JSON get a 400 here, before any view (docs/security.md).
    "gridstride.lib.textguard.TextGuardMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "gridstride.urls"
WSGI_APPLICATION = "gridstride.wsgi.application"
ASGI_APPLICATION = "gridstride.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

try:
    DATABASES = {
        "default": dj_database_url.parse(
            env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'gridstride.sqlite3'}"),
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        )
    }
except ValueError as exc:
    raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from exc
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (site, web worker) share the file: wait for locks instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    # Take the write lock when a transaction begins: a deferred one that reads, then writes, fails at
    # once with "database is locked" when another process writes meanwhile (the busy timeout cannot
    # help). WAL lets pages read while the web worker records verdicts.
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    DATABASES["default"]["OPTIONS"]["init_command"] = "PRAGMA journal_mode=WAL;"
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "catalog:problem_list"
LOGOUT_REDIRECT_URL = "catalog:problem_list"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every request when it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files a browser asks for at the root (/favicon.ico), served by WhiteNoise like the static files.
WHITENOISE_ROOT = BASE_DIR / "public"

# Django 6.1 mailers: console in development, SMTP from the environment in production.
_SMTP_OPTIONS = {
    "host": env_str("EMAIL_HOST", "localhost"),
    "port": env_int("EMAIL_PORT", 25),
    "username": env_str("EMAIL_HOST_USER", ""),
    "password": read_secret("EMAIL_HOST_PASSWORD") or "",
    "use_tls": env_bool("EMAIL_USE_TLS", False),
}
_DEFAULT_MAIL_BACKEND = (
    "django.core.mail.backends.console.EmailBackend" if DEBUG else "django.core.mail.backends.smtp.EmailBackend"
)
_MAIL_BACKEND = env_str("EMAIL_BACKEND", _DEFAULT_MAIL_BACKEND)
MAILERS = {
    "default": {
        "BACKEND": _MAIL_BACKEND,
        "OPTIONS": _SMTP_OPTIONS if _MAIL_BACKEND.endswith("smtp.EmailBackend") else {},
    }
}
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Gridstride <noreply@localhost>")

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True

# --- Celery --------------------------------------------------------------------------------
# Default broker: kombu's filesystem transport (no daemon). Production: Redis with a password.
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if not CELERY_BROKER_URL.startswith(("filesystem://", "redis://", "rediss://", "memory://")):
    raise ImproperlyConfigured(
        f"CELERY_BROKER_URL must be filesystem://, redis://, rediss:// or memory://, got {CELERY_BROKER_URL!r}"
    )
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# The longest job (benchmark limit + compile + start) must finish well inside this.
CELERY_VISIBILITY_TIMEOUT_S = env_int("CELERY_VISIBILITY_TIMEOUT_S", 3600)

# --- Judging pipeline (docs/pipeline.md; judge/worker.py reads the same variables) ---------
# Queue a submission goes to when the caller names no GPU: judge.<model>.
JUDGE_DEFAULT_GPU = env_str("JUDGE_DEFAULT_GPU", "cpu")
# GPU models a submitter may ask for (each needs judges on judge.<model>).
JUDGE_GPU_MODELS = env_list("JUDGE_GPU_MODELS", [JUDGE_DEFAULT_GPU])
# Judges that hold several GPUs at once, as "<model>:<count>" (they serve judge.<model>.x<count>):
# a problem needing k GPUs is offered only on models listed here with k (submissions/pools.py).
JUDGE_GPU_POOLS = env_list("JUDGE_GPU_POOLS", [])
# A running job's lease; the judge's heartbeats renew it. Past it, the sweeper re-queues.
JUDGE_LEASE_S = env_int("JUDGE_LEASE_S", 120)
# A queued job whose message never reached a judge for this long is sent again.
JUDGE_QUEUED_LEASE_S = env_int("JUDGE_QUEUED_LEASE_S", 3600)
# Attempts (re-queues after a lost lease) before the submission gets an internal-error verdict.
JUDGE_MAX_ATTEMPTS = env_int("JUDGE_MAX_ATTEMPTS", 3)
JUDGE_SWEEP_INTERVAL_S = env_int("JUDGE_SWEEP_INTERVAL_S", 15)
# Celery's hard limit on one judge task (the worker uses the same variable); above the sandbox's own.
JUDGE_TIME_LIMIT_S = env_int("JUDGE_TIME_LIMIT_S", 1200)
if CELERY_VISIBILITY_TIMEOUT_S <= JUDGE_TIME_LIMIT_S:
    raise ImproperlyConfigured(
        f"CELERY_VISIBILITY_TIMEOUT_S ({CELERY_VISIBILITY_TIMEOUT_S}) must be longer than "
        f"JUDGE_TIME_LIMIT_S ({JUDGE_TIME_LIMIT_S}): Redis would hand a running job to a second judge."
    )

# --- Gridstride ----------------------------------------------------------------------------
PROBLEMS_DIR = REPO_ROOT / "problems"
MAX_SOURCE_BYTES = 64 * 1024
# Submissions per user per minute before the site asks them to wait.
SUBMISSIONS_PER_MINUTE = env_int("SUBMISSIONS_PER_MINUTE", 10)
# Assessment webhooks go only to public addresses unless this is set (docs/assessments.md): a
# team's URL must not reach the site's own database, broker or metadata services.
ASSESSMENT_WEBHOOK_ALLOW_PRIVATE = env_bool("ASSESSMENT_WEBHOOK_ALLOW_PRIVATE", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
