"""Settings shared by every environment; each value that differs per machine comes from the env."""

import os
from pathlib import Path

import dj_database_url
from kombu import Exchange, Queue

BASE_DIR = Path(__file__).resolve().parent.parent.parent

DEFAULT_DATABASE_URL = "postgres://copydetect:copydetect@127.0.0.1:54329/copydetect"
DEFAULT_BROKER_URL = "redis://127.0.0.1:63790/0"

SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-change-me")
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
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.errors.AppErrorMiddleware",
]

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

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL", default=DEFAULT_DATABASE_URL, conn_max_age=60
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

# Uploads larger than this are refused with a 400 (API) or a form error (UI).
MAX_UPLOAD_BYTES = int(os.environ.get("MAX_UPLOAD_BYTES", 20 * 1024 * 1024))

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
# uploads and single re-checks go, is empty (a review saw one upload wait 73 s behind the
# re-check of a 1,111-document archive).
DOCUMENTS_BULK_QUEUE = f"{DOCUMENTS_QUEUE}-bulk"
CELERY_TASK_DEFAULT_QUEUE = DOCUMENTS_QUEUE
CELERY_TASK_ROUTES = {"documents.*": {"queue": DOCUMENTS_QUEUE}}
CELERY_TASK_QUEUES = (_queue(DOCUMENTS_QUEUE), _queue(DOCUMENTS_BULK_QUEUE))
CELERY_BROKER_TRANSPORT_OPTIONS = {"queue_order_strategy": "priority"}  # in that order
# A task is acknowledged only after it ran, and a worker takes one at a time, so a crash
# mid-document hands the document to another worker instead of losing it.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # trafilatura logs ERROR for every page it cannot parse ("empty HTML tree", "parsed tree
    # length: 1"); extraction.webpage then reads the page with its own fallback and
    # tells the user when nothing is left, so these are not errors of the product.
    "loggers": {"trafilatura": {"level": "CRITICAL"}},
}
