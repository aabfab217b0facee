"""Configuration that operations rely on: production settings, the task's delivery options."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.celery import app
from documents.models import Document
from documents.tasks import document_process_task
from tests.documents.factories import upload

REPO = Path(__file__).resolve().parents[2]


def import_prod_settings(**env):
    environment = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ALLOWED_HOSTS")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import config.settings.prod as s; print(s.ALLOWED_HOSTS)"],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
    )


def test_production_settings_require_a_secret_key_and_hosts():
    missing = import_prod_settings()
    assert missing.returncode != 0
    assert "Set the SECRET_KEY environment variable" in missing.stderr
    key = "s3cret-" + "k7Qz9xW2" * 6  # prod refuses keys under 50 characters
    ok = import_prod_settings(SECRET_KEY=key, ALLOWED_HOSTS="a.example, b.example")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "['a.example', 'b.example']"


def test_the_task_is_acknowledged_late_on_its_own_queue(settings):
    assert document_process_task.acks_late is True
    assert app.conf.worker_prefetch_multiplier == 1
    route = app.amqp.router.route({}, document_process_task.name)
    assert route["queue"].name == settings.DOCUMENTS_QUEUE == app.conf.task_default_queue


@pytest.mark.django_db
def test_the_task_processes_the_document_it_is_given(owner):
    from documents import services

    collection = services.collection_create(owner=owner, name="c")
    document = upload(collection, "zh_source.txt")
    document_process_task(document.id)
    document.refresh_from_db()
    assert (document.status, document.progress) == (Document.Status.DONE, 100)


@pytest.mark.django_db
def test_the_task_returns_quietly_when_the_document_is_gone():
    assert document_process_task(987654321) is None
