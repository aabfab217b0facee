"""Settings shared by every environment; each value that differs per machine comes from the env."""

import os
from pathlib import Path

import dj_database_url
from kombu import Exchange, Queue

from core import instance

BASE_DIR = Path(__file__).resolve().parent.parent.parent

# The running instance's URLs (ports, passwords) from var/instance.env, written by the
# scripts; variables already set win (core/instance.py).
instance.load(BASE_DIR / "var")

DEFAULT_DATABASE_URL = "postgres://copydetect:copydetect@127.0.0.1:54329/copydetect"
DEFAULT_BROKER_URL = "redis://127.0.0.1:63790/0"

# Development and tests only: config.settings.prod refuses this key.
DEV_SECRET_KEY = "dev-only-insecure-key-change-me"
SECRET_KEY = os.environ.get("SECRET_KEY", DEV_SECRET_KEY)
DEBUG = False
ALLOWED_HOSTS: list[str] = []

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "axes",
    "core",
    "workspaces",
    "documents",
    "dedup",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "core.uploads.RequestLimitMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.errors.AppErrorMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its 429 answer.
    "axes.middleware.AxesMiddleware",
]

# Login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins for one username
# from one address, that pair is refused (429) for AXES_COOLOFF_TIME hours; a success
# resets the count. Other users and addresses are unaffected, so a guesser cannot lock a
# user out from everywhere. Counted in the database (axes' tables).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", 10))
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_MINUTES", 15)) / 60  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# Behind a reverse proxy on this machine every client comes from 127.0.0.1: BEHIND_PROXY=1
# counts by the address the proxy saw instead (core/auth.py).
BEHIND_PROXY = os.environ.get("BEHIND_PROXY", "0") == "1"
AXES_CLIENT_IP_CALLABLE = "core.auth.client_ip"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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

# Connections live a minute and are checked before reuse: after a PostgreSQL restart a
# thread's first request would otherwise meet its dead connection and get the 503 page.
DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=DEFAULT_DATABASE_URL,
        conn_max_age=60,
        conn_health_checks=True,
    ),
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where collectstatic gathers the files gunicorn + whitenoise serve (prod); an env var so a
# test can collect into a temporary directory.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "var" / "staticfiles"))
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "var" / "media"))

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "collection_list"
LOGOUT_REDIRECT_URL = "login"

# Uploads larger than this are refused with a 400 (API) or a form error (UI), while the
# body is read (core/uploads.py): a file is never held whole before the check.
MAX_UPLOAD_BYTES = int(os.environ.get("MAX_UPLOAD_BYTES", 20 * 1024 * 1024))
# A request body larger than this (several files, or one too large) is refused with a 413
# from its Content-Length, before it is read.
MAX_REQUEST_BYTES = int(os.environ.get("MAX_REQUEST_BYTES", MAX_UPLOAD_BYTES + 5 * 1024 * 1024))
FILE_UPLOAD_HANDLERS = [
    "core.uploads.LimitedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Form fields other than files (Django's default, stated): a larger body of fields is a 400.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2621440
# Originals are students' and authors' work: readable by the app's own OS user only.
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700
# Documents whose text is longer are refused when processed (a DOCX or PDF can hold far more
# text than its size; a text file under MAX_UPLOAD_BYTES never has more characters than this
# default): a worker needs about 15 MB per million characters on top of its 270 MB.
MAX_TEXT_CHARS = int(os.environ.get("MAX_TEXT_CHARS", MAX_UPLOAD_BYTES))
# Term retrieval (documents/detector_config.py): finds the sources of machine translations
# through their words; doubles the index's postings, so it is off unless set to 1.
DETECTION_TERM_RETRIEVAL = os.environ.get("DETECTION_TERM_RETRIEVAL", "0") == "1"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "core.schema.AppAutoSchema",
    "EXCEPTION_HANDLER": "core.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "copydetect API",
    "DESCRIPTION": "Upload documents, follow their processing and read copy-detection reports.",
    "VERSION": "1.0.0",
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", DEFAULT_BROKER_URL)


def _queue(name: str) -> Queue:
    """A queue bound by its own name only, on an exchange of its own. Without an exchange
    Celery binds every declared queue to the default one with the default routing key, and
    kombu keeps such bindings in Redis for good: the ".direct" names are new, so a binding
    table left by that mistake is never looked up."""
    return Queue(name, Exchange(f"{name}.direct", type="direct"), routing_key=name)


# The queue document tasks go to; a worker started without -Q consumes it (default queue).
DOCUMENTS_QUEUE = os.environ.get("CELERY_QUEUE", "documents")
# Re-checks of many documents at once ("check every document again", a template read, an
# upgrade's re-analysis) wait here: a worker takes from it only when DOCUMENTS_QUEUE, where
# uploads and single re-checks go, is empty, so an upload never waits behind the re-check of
# a whole archive.
DOCUMENTS_BULK_QUEUE = f"{DOCUMENTS_QUEUE}-bulk"
CELERY_TASK_DEFAULT_QUEUE = DOCUMENTS_QUEUE
CELERY_TASK_ROUTES = {"documents.*": {"queue": DOCUMENTS_QUEUE}}
CELERY_TASK_QUEUES = (_queue(DOCUMENTS_QUEUE), _queue(DOCUMENTS_BULK_QUEUE))
# Queues in that order. visibility_timeout: a message taken by a worker that died unacknowledged
# is delivered again after this many seconds (kombu's default is an hour). Longer than any
# task runs (a document, a 200 MB import) and than the retries' countdowns, else a running
# task is delivered a second time; the tasks are idempotent, so that would only waste work.
# The supervisor of make run / make serve restores a dead worker's messages at once anyway
# (core/broker.py).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "queue_order_strategy": "priority",
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", 900)),
}
# A task is acknowledged only after it ran, and a worker takes one at a time, so a crash
# mid-document hands the document to another worker instead of losing it.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Every worker sends the sweep (documents.tasks.work_sweep_task) this often: outbox messages
# the broker did not take are sent, and unfinished work whose lease ran out (core.lease) is
# queued again. A task holds its lease for LEASE_SECONDS after its last heartbeat; work never
# leased (queued, not started) is queued again LEASE_GRACE_SECONDS after the sweep saw it.
SWEEP_SECONDS = float(os.environ.get("SWEEP_SECONDS", 60))
LEASE_SECONDS = float(os.environ.get("LEASE_SECONDS", 90))
LEASE_GRACE_SECONDS = float(os.environ.get("LEASE_GRACE_SECONDS", 120))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # trafilatura logs ERROR for every page it cannot parse ("empty HTML tree", "parsed tree
    # length: 1"); extraction.webpage then reads the page with its own fallback and
    # tells the user when nothing is left, so these are not errors of the product.
    "loggers": {
        "trafilatura": {"level": "CRITICAL"},
        # django-axes announces itself at INFO in every process; lockouts are WARNINGs.
        "axes": {"level": "WARNING"},
    },
}
