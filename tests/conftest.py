"""Shared fixtures: users (owner and stranger), API clients, the shared development data, and
a real Celery worker process for each test module that asks for one (end-to-end, browser and
worker tests).

The worker runs `celery -A config worker` with the test settings, pointed at pytest-django's
test database (`test_<name>`) and at the test Redis database, so it only sees what these tests
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
from hypothesis import settings

# `make test` (and so CI) runs the property tests with fixed examples: a rare counterexample
# found by chance must not fail one CI run and pass the next; `HYPOTHESIS_PROFILE=explore`
# (the default outside `make test`) searches anew every run. No deadline: tests assert
# behaviour, never timing, and a loaded machine must not fail them.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "explore"))

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
READY_WITHIN_SECONDS = 90


@pytest.fixture
def shared_data() -> Path:
    """`<repo>/../shared/data`, or skip when this checkout has no shared data next to it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared development data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user(username="owner", password="owner-pass")


@pytest.fixture
def stranger(django_user_model):
    return django_user_model.objects.create_user(username="stranger", password="stranger-pass")


@pytest.fixture
def browser(client, owner):
    """Django's test client logged in as the owner (the server-rendered pages' tests)."""
    client.force_login(owner)
    return client


@pytest.fixture
def api(owner):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(owner)
    return client


@pytest.fixture
def anonymous_api():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture(autouse=True)
def _empty_index_after_transactional_tests(request):
    """Flushing a transactional test's database only truncates Django-managed tables; the
    raw-SQL index tables are emptied here so no postings leak into the next test. The
    process's list of heavy features, and the near-duplicate runs it holds, are forgotten
    before every test."""
    from dedup import run_index
    from documents.index import store as pg_index

    pg_index._HEAVY.clear()
    run_index.forget()
    yield
    marker = request.node.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or any(
        name in request.fixturenames for name in ("transactional_db", "live_server")
    )
    if not transactional:
        return
    from django.db import connection

    django_db_blocker = request.getfixturevalue("django_db_blocker")
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE documents_posting, documents_feature_df, documents_index_documents"
        )


def _database_url(settings_dict: dict) -> str:
    user, password = settings_dict["USER"], settings_dict["PASSWORD"]
    host, port, name = settings_dict["HOST"], settings_dict["PORT"], settings_dict["NAME"]
    return f"postgres://{user}:{password}@{host}:{port}/{name}"


@pytest.fixture(scope="module")
def celery_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """Start a worker for the module; yield its log file; stop it after the module's tests.

    Not one for the whole session: other tests with `transaction=True` commit uploads too, and
    a live worker took their tasks and processed the documents beside the test (its commit
    deadlocked with the test's flush at teardown). Tasks queued while no worker runs are
    purged before one starts."""
    from django.conf import settings
    from django.db import connection

    from config.celery import app

    app.control.purge()  # this session's queues only (config.settings.test)

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
    queues = f"{settings.DOCUMENTS_QUEUE},{settings.DOCUMENTS_BULK_QUEUE}"
    command += ["-Q", queues, "-n", f"pytest-{os.getpid()}@%h", "--loglevel=INFO"]
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


@pytest.fixture
def nltk_data() -> str:
    """WordNet for NLTK: ``$NLTK_DATA`` or the repo's ``var/nltk_data`` (scripts/wordnet.sh)."""
    for root in (os.environ.get("NLTK_DATA"), str(REPO / "var" / "nltk_data")):
        if root and (Path(root) / "corpora" / "wordnet" / "data.noun").is_file():
            return root
    pytest.skip("WordNet data not installed: run scripts/wordnet.sh (Debian wordnet-base)")
