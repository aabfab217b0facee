"""A real Celery worker process for the end-to-end and browser tests.

It runs `celery -A config worker` with the test settings, pointed at pytest-django's test
database (`test_<name>`) and at the test Redis database, so it only sees what these tests
commit (they use `transaction=True`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
READY_WITHIN_SECONDS = 90


def _database_url(settings_dict: dict) -> str:
    user, password = settings_dict["USER"], settings_dict["PASSWORD"]
    host, port, name = settings_dict["HOST"], settings_dict["PORT"], settings_dict["NAME"]
    return f"postgres://{user}:{password}@{host}:{port}/{name}"


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """Start one worker for the session; yield its log file; stop it at the end."""
    from django.conf import settings
    from django.db import connection

    log = tmp_path_factory.mktemp("celery") / "worker.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": _database_url(connection.settings_dict),
        "TEST_CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "TEST_CELERY_QUEUE": settings.DOCUMENTS_QUEUE,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
    }
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo"]
    command += ["-Q", settings.DOCUMENTS_QUEUE, "-n", f"pytest-{os.getpid()}@%h", "--loglevel=INFO"]
    with open(log, "wb") as output:
        worker = subprocess.Popen(command, cwd=REPO, env=env, stdout=output, stderr=output)
    try:
        _wait_until_ready(worker, log)
        yield log
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def _wait_until_ready(worker: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + READY_WITHIN_SECONDS
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError(f"the Celery worker exited early:\n{log.read_text()}")
        if " ready." in log.read_text(errors="replace"):
            return
        time.sleep(0.3)
    raise RuntimeError(f"the Celery worker did not start:\n{log.read_text()}")
