"""`make serve` never keeps the demo superuser of `make run` (scripts/serve.sh,
disable_demo_user): it is disabled, loudly, and its collections are kept."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.authtoken.models import Token

from documents import services

REPO = Path(__file__).resolve().parents[2]


def _database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


def _disable() -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": _database_url(),
           "DJANGO_SETTINGS_MODULE": "config.settings.test"}  # fmt: skip
    env.pop("DEMO_USER", None)
    return subprocess.run(
        ["bash", "-c", f'source "{REPO}/scripts/serve.sh"; disable_demo_user'],
        env=env, capture_output=True, text=True,
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_serve_disables_the_demo_user_and_says_so(client):
    demo = get_user_model().objects.create_superuser("demo", "demo@example.invalid",
                                                     "demo-password")  # fmt: skip
    Token.objects.create(user=demo)
    collection = services.collection_create(owner=demo, name="Demo essays")
    assert client.login(username="demo", password="demo-password")

    done = _disable()
    assert done.returncode == 0, done.stderr[-2000:]
    assert 'the demo user "demo"' in done.stderr and "DISABLED" in done.stderr

    demo.refresh_from_db()
    assert not demo.is_active and not demo.has_usable_password()
    assert not demo.is_superuser and not demo.is_staff
    assert not Token.objects.filter(user=demo).exists()
    assert client.get("/").status_code == 302  # the old session is gone: to the login page
    assert not client.login(username="demo", password="demo-password")
    collection.refresh_from_db()  # kept

    again = _disable()
    assert again.returncode == 0 and "DISABLED" not in again.stderr


@pytest.mark.django_db(transaction=True)
def test_serve_without_a_demo_user_says_nothing_about_one():
    done = _disable()
    assert done.returncode == 0, done.stderr[-2000:]
    assert "demo" not in done.stderr
