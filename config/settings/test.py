"""Tests: the real PostgreSQL (pytest-django creates `test_<name>`) and a Redis database of
their own, so a development worker listening on the default database never steals test tasks."""

import os
from pathlib import Path

from config.settings.base import *  # noqa: F403
from config.settings.base import BASE_DIR, DATABASES, DEFAULT_BROKER_URL, _queue

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _test_broker_url() -> str:
    """The configured broker with its database number swapped for 15 (tests only)."""
    explicit = os.environ.get("TEST_CELERY_BROKER_URL")
    if explicit:
        return explicit
    base = os.environ.get("CELERY_BROKER_URL", DEFAULT_BROKER_URL)
    return base.rsplit("/", 1)[0] + "/15" if base.count("/") >= 3 else base + "/15"


CELERY_BROKER_URL = _test_broker_url()
# A queue of this test session's own (the worker it starts gets the name through the env),
# so two test sessions on one machine never take each other's tasks.
DOCUMENTS_QUEUE = os.environ.get("TEST_CELERY_QUEUE") or f"documents-test-{os.getpid()}"
DOCUMENTS_BULK_QUEUE = f"{DOCUMENTS_QUEUE}-bulk"
CELERY_TASK_DEFAULT_QUEUE = DOCUMENTS_QUEUE
CELERY_TASK_ROUTES = {"documents.*": {"queue": DOCUMENTS_QUEUE}}
CELERY_TASK_QUEUES = (_queue(DOCUMENTS_QUEUE), _queue(DOCUMENTS_BULK_QUEUE))

# pytest-django creates `test_<NAME>`; TEST_DATABASE_NAME picks another name so concurrent
# sessions (several checkouts, several engineers) do not drop each other's test database.
if os.environ.get("TEST_DATABASE_NAME"):
    DATABASES["default"]["TEST"] = {"NAME": os.environ["TEST_DATABASE_NAME"]}
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "var" / "test-media"))
MAX_UPLOAD_BYTES = 1024 * 1024
# Login throttling off: tests log in through the test client's login(), which calls
# authenticate() without a request, and axes refuses that; tests/ops switches it on.
AXES_ENABLED = False

# The worker a test starts sweeps only when the test asks for it (tests/faults).
SWEEP_SECONDS = float(os.environ.get("SWEEP_SECONDS", 0))
