"""Production mode (`make serve`): the prod settings, scripts/serve.sh, and gunicorn serving the
app with WhiteNoise against the test database.

Settings are imported in their own process each time: config.settings.prod reads the
environment once, at import, and this session already runs config.settings.test.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings as test_settings
from django.db import connection

REPO = Path(__file__).resolve().parents[1]
SERVE_SH = REPO / "scripts" / "serve.sh"
PROD_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings.prod",
    "SECRET_KEY": "test-only-secret-key-for-production-settings-0123456789",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
}
# Variables of the caller's shell that would change what prod.py or serve.sh decide.
UNSET = ("SECRET_KEY", "ALLOWED_HOSTS", "SECURE_COOKIES", "SECURE_SSL_REDIRECT", "BIND",
         "STATIC_ROOT", "MAX_UPLOAD_BYTES", "SECRET_KEY_FILE", "ACCESS_LOG")  # fmt: skip
START_ATTEMPTS = 300  # polls of the new server, 0.1 s apart; a bound, not a timing claim


def _env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env.update(overrides)
    return env


def _prod_settings(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Import config.settings.prod in a fresh interpreter; print the values the tests check."""
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({'DEBUG': s.DEBUG, 'MIDDLEWARE': s.MIDDLEWARE, "
        "'STORAGES': s.STORAGES, 'STATIC_ROOT': str(s.STATIC_ROOT), "
        "'MAX_UPLOAD_BYTES': s.MAX_UPLOAD_BYTES, "
        "'DATA_UPLOAD_MAX_MEMORY_SIZE': s.DATA_UPLOAD_MAX_MEMORY_SIZE, "
        "'SESSION_COOKIE_SECURE': s.SESSION_COOKIE_SECURE, "
        "'SECURE_SSL_REDIRECT': s.SECURE_SSL_REDIRECT}))"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True
    )


def _prod_values(**overrides: str) -> dict:
    done = _prod_settings(_env(**PROD_ENV, **overrides))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


# ------------------------------------------------------------------------- settings


def test_prod_settings_import_with_the_environment_set_and_debug_off():
    values = _prod_values()
    assert values["DEBUG"] is False
    assert values["STORAGES"]["staticfiles"]["BACKEND"] == (
        "whitenoise.storage.CompressedManifestStaticFilesStorage"
    )
    # Uploads still go to MEDIA_ROOT through the default storage.
    assert values["STORAGES"]["default"]["BACKEND"].endswith("FileSystemStorage")


def test_prod_settings_refuse_to_import_without_a_secret_key():
    env = _env(**{k: v for k, v in PROD_ENV.items() if k != "SECRET_KEY"})
    done = _prod_settings(env)
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and "SECRET_KEY" in done.stderr


def test_prod_settings_refuse_to_import_without_allowed_hosts():
    env = _env(**{k: v for k, v in PROD_ENV.items() if k != "ALLOWED_HOSTS"})
    done = _prod_settings(env)
    assert done.returncode != 0
    assert "ALLOWED_HOSTS" in done.stderr


def test_whitenoise_comes_right_after_the_security_middleware():
    middleware = _prod_values()["MIDDLEWARE"]
    security = middleware.index("django.middleware.security.SecurityMiddleware")
    assert middleware[security + 1] == "whitenoise.middleware.WhiteNoiseMiddleware"


def test_dev_and_test_settings_need_no_collected_static_files():
    assert "whitenoise.middleware.WhiteNoiseMiddleware" not in test_settings.MIDDLEWARE
    assert "whitenoise" not in test_settings.STORAGES["staticfiles"]["BACKEND"]


def test_cookies_are_secure_and_http_redirected_unless_switched_off():
    assert _prod_values()["SESSION_COOKIE_SECURE"] is True
    assert _prod_values()["SECURE_SSL_REDIRECT"] is True
    off = _prod_values(SECURE_COOKIES="0", SECURE_SSL_REDIRECT="0")
    assert off["SESSION_COOKIE_SECURE"] is False and off["SECURE_SSL_REDIRECT"] is False


def test_prod_keeps_the_upload_limits_of_base(tmp_path):
    values = _prod_values()
    assert values["MAX_UPLOAD_BYTES"] == 20 * 1024 * 1024
    # Django's own cap counts the request body *without* uploaded files, so it does not
    # limit a 20 MB file; the app's MAX_UPLOAD_BYTES does.
    assert values["DATA_UPLOAD_MAX_MEMORY_SIZE"] == 2621440
    assert _prod_values(MAX_UPLOAD_BYTES="1234")["MAX_UPLOAD_BYTES"] == 1234
    assert _prod_values(STATIC_ROOT=str(tmp_path))["STATIC_ROOT"] == str(tmp_path)


# ------------------------------------------------------------------------- serve.sh


@pytest.mark.parametrize("script", ["serve.sh", "children.sh", "run.sh"])
def test_the_scripts_parse(script):
    done = subprocess.run(["bash", "-n", str(REPO / "scripts" / script)], capture_output=True)
    assert done.returncode == 0, done.stderr


def _serve_sh(snippet: str, **env: str) -> str:
    """Run `snippet` in bash after sourcing serve.sh (functions only, nothing started)."""
    done = subprocess.run(
        ["bash", "-c", f'source "{SERVE_SH}"; {snippet}'],
        env=_env(**env), capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize(
    ("bind", "loopback"),
    [("127.0.0.1:8123", True), ("localhost:80", True), ("[::1]:8000", True),
     ("127.0.0.1", True), ("0.0.0.0:8000", False), ("192.0.2.7:8000", False),
     ("[::]:8000", False), ("unix:/run/copydetect.sock", False)],
)  # fmt: skip
def test_only_a_loopback_bind_counts_as_plain_http_safe(bind, loopback):
    out = _serve_sh(f"bind_is_loopback '{bind}' && echo yes || echo no")
    assert out.strip() == ("yes" if loopback else "no")


def test_secure_flags_are_switched_off_only_on_loopback_and_only_when_unset(tmp_path):
    show = (
        'export_prod_env; echo "${SECURE_COOKIES-unset},${SECURE_SSL_REDIRECT-unset},'
        '$ALLOWED_HOSTS"'
    )
    key = str(tmp_path / "key")
    out = _serve_sh(show, BIND="127.0.0.1:8123", SECRET_KEY_FILE=key)
    assert out.split()[-1] == "0,0,localhost,127.0.0.1"
    out = _serve_sh(show, BIND="127.0.0.1:8123", SECRET_KEY_FILE=key, SECURE_COOKIES="1",
                    ALLOWED_HOSTS="example.org")  # fmt: skip
    assert out.split()[-1] == "1,0,example.org"
    # Not loopback: left unset, so prod.py's secure defaults (1) apply.
    out = _serve_sh(show, BIND="0.0.0.0:8000", SECRET_KEY_FILE=key)
    assert out.split()[-1] == "unset,unset,localhost,127.0.0.1"


def test_the_secret_key_is_generated_once_private_and_reused(tmp_path):
    key_file = tmp_path / "var" / "secret_key"
    first = _serve_sh(f"secret_key '{key_file}'").strip()
    assert len(first) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert _serve_sh(f"secret_key '{key_file}'").strip() == first


def test_a_secret_key_from_the_environment_wins_and_writes_no_file(tmp_path):
    key_file = tmp_path / "secret_key"
    out = _serve_sh(f"secret_key '{key_file}'", SECRET_KEY="from-env")
    assert out.strip() == "from-env"
    assert not key_file.exists()


def test_serve_refuses_a_port_in_use_before_setting_anything_up():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            ["bash", str(SERVE_SH)], env=_env(BIND=f"127.0.0.1:{port}"),
            capture_output=True, text=True,
        )  # fmt: skip
    assert done.returncode == 1
    assert f"127.0.0.1:{port} is already in use" in done.stderr
    assert "system packages" not in done.stderr  # refused before the set-up began


# ------------------------------------------------------------- gunicorn, end to end


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _database_url(settings_dict: dict) -> str:
    user, password = settings_dict["USER"], settings_dict["PASSWORD"]
    host, port, name = settings_dict["HOST"], settings_dict["PORT"], settings_dict["NAME"]
    return f"postgres://{user}:{password}@{host}:{port}/{name}"


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url) as response:  # noqa: S310 (a local test server)
        return response.status, response.read().decode("utf-8", "replace")


def _wait_until_up(server: subprocess.Popen, url: str, log: Path) -> None:
    for _ in range(START_ATTEMPTS):
        if server.poll() is not None:
            pytest.fail(f"gunicorn exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            _get(url)
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    pytest.fail(f"gunicorn never answered {url}:\n{log.read_text()[-3000:]}")


@pytest.fixture
def prod_server(django_db_setup, django_db_blocker, tmp_path):
    """serve.sh's own gunicorn command with the prod settings on a free port, against
    pytest's test database, after collectstatic into a temporary STATIC_ROOT."""
    with django_db_blocker.unblock():
        database_url = _database_url(dict(connection.settings_dict))
    port = _free_port()
    env = _env(**PROD_ENV, SECURE_COOKIES="0", SECURE_SSL_REDIRECT="0",
               DATABASE_URL=database_url, CELERY_BROKER_URL=test_settings.CELERY_BROKER_URL,
               STATIC_ROOT=str(tmp_path / "static"), BIND=f"127.0.0.1:{port}",
               WEB_WORKERS="1", ACCESS_LOG=str(tmp_path / "access.log"))  # fmt: skip
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=REPO, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert collected.returncode == 0, collected.stderr[-3000:]
    command = subprocess.run(
        ["bash", "-c", f'source "{SERVE_SH}"; gunicorn_command'],
        env=env, capture_output=True, check=True,
    ).stdout.decode().split("\0")[:-1]  # fmt: skip
    log = tmp_path / "gunicorn.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def stop() -> None:
        if server.poll() is None:
            # Its own session: the signal reaches the arbiter and its workers.
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()

    try:
        base = f"http://127.0.0.1:{port}"
        _wait_until_up(server, f"{base}/accounts/login/", log)
        yield base, tmp_path, stop
    finally:
        stop()


def test_gunicorn_serves_the_login_page_and_hashed_static_files(prod_server):
    base, tmp_path, stop = prod_server
    manifest = json.loads((tmp_path / "static" / "staticfiles.json").read_text())
    hashed = manifest["paths"]["css/app.css"]
    assert hashed != "css/app.css"

    status, page = _get(f"{base}/accounts/login/")
    assert status == 200
    assert f"/static/{hashed}" in page  # the templates link the hashed name
    status, css = _get(f"{base}/static/{hashed}")
    assert status == 200 and css.strip()

    with pytest.raises(urllib.error.HTTPError) as missing:
        _get(f"{base}/static/css/no-such-file.css")
    assert missing.value.code == 404

    stop()  # a request is logged after its response is sent: read the log once it is down
    access = (tmp_path / "access.log").read_text()
    assert "GET /accounts/login/" in access and f"GET /static/{hashed}" in access
