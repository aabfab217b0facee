"""Production refuses weak secret keys; manage.py reaches the running instance through
var/instance.env (core/instance.py), which the scripts write privately."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from core import instance

REPO = Path(__file__).resolve().parents[2]
COMMON_SH = REPO / "scripts" / "common.sh"
PROD = {"DJANGO_SETTINGS_MODULE": "config.settings.prod", "ALLOWED_HOSTS": "localhost"}


def _django(env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=REPO, env=env, capture_output=True, text=True,
    )  # fmt: skip


def _prod(secret_key: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    return _django({**env, **PROD, "SECRET_KEY": secret_key}, "print('ok')")


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("dev-only-insecure-key-change-me", "development key"),
        ("django-insecure-" + "x1y2z3" * 10, "development key"),
        ("short-but-random-Qx7", "too short"),
        ("a" * 64, "too short or too simple"),
        ("   ", "Set the SECRET_KEY"),
    ],
)
def test_production_refuses_a_known_or_weak_secret_key(key, why):
    done = _prod(key)
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and why in done.stderr


def test_production_accepts_a_random_key():
    done = _prod("Zq8" + "kP2vN7xR4mT9wB1cL6hJ3sD5fG0aE8yU" * 2)
    assert done.returncode == 0, done.stderr[-2000:]


def test_instance_values_fill_only_unset_variables(tmp_path, monkeypatch):
    (tmp_path / "instance.env").write_text(
        "# comment\nDATABASE_URL=postgres://a:pw@127.0.0.1:1/db\n\nNEW_NAME=x=y\nbroken line\n"
    )
    monkeypatch.setenv("DATABASE_URL", "postgres://from-env")
    monkeypatch.delenv("NEW_NAME", raising=False)
    added = instance.load(tmp_path)
    assert added == {"NEW_NAME": "x=y"}
    assert os.environ["DATABASE_URL"] == "postgres://from-env"
    assert os.environ["NEW_NAME"] == "x=y"
    assert instance.load(tmp_path / "missing") == {}


def test_the_scripts_write_the_instance_file_and_passwords_privately(tmp_path):
    var = tmp_path / "var"
    show = (
        f'VAR="{var}"; SECRETS_DIR="$VAR/secrets"; INSTANCE_ENV="$VAR/instance.env"; '
        'write_instance_env; redact_url "$DATABASE_URL"'
    )
    env = {**os.environ, "PGPORT": "54999", "REDIS_PORT": "63999"}
    done = subprocess.run(["bash", "-c", f'source "{COMMON_SH}"; {show}'], env=env,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "postgres://copydetect:***@127.0.0.1:54999/copydetect"
    values = instance.read(var / "instance.env")
    pg, redis = (var / "secrets" / "postgres").read_text(), (var / "secrets" / "redis").read_text()
    assert len(pg) == 48 and pg != redis and pg != "copydetect"
    assert values["DATABASE_URL"] == f"postgres://copydetect:{pg}@127.0.0.1:54999/copydetect"
    assert values["CELERY_BROKER_URL"] == f"redis://:{redis}@127.0.0.1:63999/0"
    for path, mode in ((var / "instance.env", 0o600), (var / "secrets", 0o700),
                       (var / "secrets" / "postgres", 0o600)):  # fmt: skip
        assert stat.S_IMODE(path.stat().st_mode) == mode, path
    # Made once: the same passwords the next time.
    subprocess.run(["bash", "-c", f'source "{COMMON_SH}"; {show}'], env=env, check=True,
                   capture_output=True)  # fmt: skip
    assert (var / "secrets" / "postgres").read_text() == pg


def test_manage_py_reaches_the_running_instance_without_any_variable():
    env_file = REPO / "var" / instance.FILE_NAME
    if not env_file.is_file():
        pytest.skip("no var/instance.env: this tree's services were not started by the scripts")
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from django.db import connection; connection.ensure_connection(); "
         "print('connected', connection.settings_dict['PORT'])"],
        cwd=REPO, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    port = instance.read(env_file)["DATABASE_URL"].rsplit(":", 1)[1].split("/")[0]
    assert f"connected {port}" in done.stdout
