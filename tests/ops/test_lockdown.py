"""Another local OS user (`nobody`) cannot reach this tree's PostgreSQL or Redis, nor read
an uploaded original or the instance's passwords. Needs root (to act as `nobody`)."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from documents import services
from documents.models import Document

REPO = Path(__file__).resolve().parents[2]


def _skip_unless_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("acting as another OS user needs root")
    if shutil.which("runuser") is None:
        pytest.skip("runuser is missing")
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no OS user `nobody`")


pytestmark = [pytest.mark.django_db]


def as_nobody(*command: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["runuser", "-u", "nobody", "--", "env", *(f"{k}={v}" for k, v in env.items()),
         *command],
        cwd="/", capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def _psql() -> str:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"))
    if not versions:
        pytest.skip("no psql")
    return str(versions[-1])


def _socket_dir() -> str:
    done = subprocess.run(
        ["bash", "-c", f'source "{REPO}/scripts/common.sh"; echo "$PGSOCKET"'],
        env={**os.environ, "PGPORT": "1", "REDIS_PORT": "1"}, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    return done.stdout.strip()


def test_nobody_cannot_connect_to_postgresql():
    _skip_unless_root()
    port = str(connection.settings_dict["PORT"])
    socket_dir = _socket_dir()
    assert stat.S_IMODE(os.stat(socket_dir).st_mode) == 0o700
    psql = _psql()
    attempts = [
        # the superuser over the socket (once `trust`)
        ([psql, "-h", socket_dir, "-p", port, "-U", "postgres", "-d", "postgres"], {}),
        # the app's role over TCP: without a password, with the old fixed one
        ([psql, "-h", "127.0.0.1", "-p", port, "-U", "copydetect", "-d", "copydetect"], {}),
        ([psql, "-h", "127.0.0.1", "-p", port, "-U", "copydetect", "-d", "copydetect"],
         {"PGPASSWORD": "copydetect"}),
        ([psql, "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "postgres"], {}),
    ]  # fmt: skip
    for command, env in attempts:
        done = as_nobody(*command, "-w", "-tAc", "SELECT 1", **env)
        assert done.returncode != 0 and "1" not in done.stdout.split(), (command, done)
        assert "failed" in done.stderr or "denied" in done.stderr, done.stderr


def test_nobody_cannot_use_redis():
    _skip_unless_root()
    if shutil.which("redis-cli") is None:
        pytest.skip("no redis-cli")
    port = str(urlsplit(settings.CELERY_BROKER_URL).port)
    done = as_nobody("redis-cli", "-h", "127.0.0.1", "-p", port, "ping")
    assert "NOAUTH" in done.stdout + done.stderr and "PONG" not in done.stdout
    done = as_nobody("redis-cli", "-h", "127.0.0.1", "-p", port, "-a", "copydetect",
                     "--no-auth-warning", "ping")  # fmt: skip
    assert "PONG" not in done.stdout


def test_nobody_cannot_read_an_original_nor_the_passwords(api, owner):
    _skip_unless_root()
    collection = services.collection_create(owner=owner, name="Private")
    response = api.post(
        f"/api/collections/{collection.id}/documents/",
        {"file": SimpleUploadedFile("essay.txt", b"A private essay about rivers.")},
        format="multipart",
    )
    assert response.status_code == 201
    original = Path(Document.objects.get().original.path)
    assert stat.S_IMODE(original.stat().st_mode) == 0o600
    folder = original.parent
    while folder != Path(settings.MEDIA_ROOT).parent:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
        folder = folder.parent
    done = as_nobody("cat", str(original))
    assert done.returncode != 0 and "rivers" not in done.stdout
    assert "Permission denied" in done.stderr

    for secret in (REPO / "var" / "secrets" / "postgres", REPO / "var" / "instance.env"):
        if secret.exists():
            done = as_nobody("cat", str(secret))
            assert done.returncode != 0 and "Permission denied" in done.stderr
