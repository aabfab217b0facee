"""scripts/services.sh upgrades the var/ of an older release in place (trust on the socket,
the fixed password `copydetect`, Redis without a password, world-readable media): a running
or stopped instance gets its passwords and private files, and keeps its data.

Runs a PostgreSQL and a Redis of a scratch tree (the scripts copied into var/upgrade-test-*)
on free ports, small and not durable, stopped and deleted at the end."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from core import instance

REPO = Path(__file__).resolve().parents[2]
KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")


def _pg_bin() -> Path:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    if not versions or shutil.which("redis-server") is None:
        pytest.skip("PostgreSQL server or Redis not installed")
    return versions[-1]


@pytest.fixture
def tree():
    """A scratch tree with the service scripts; its services are stopped afterwards. In this
    tree's var/, not pytest's tmp_path: as root the postgres user must traverse every parent,
    and another pytest session starting on the machine makes /tmp/pytest-of-root 0700."""
    (REPO / "var").mkdir(exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="upgrade-test-", dir=REPO / "var"))
    (root / "scripts").mkdir(parents=True)
    for name in ("common.sh", "services.sh"):
        shutil.copy(REPO / "scripts" / name, root / "scripts" / name)
    try:
        yield root
    finally:
        subprocess.run(["bash", str(root / "scripts" / "services.sh"), "stop"], env=_env(),
                       capture_output=True, timeout=120)  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in KEEP}
    env.update(PG_SHARED_BUFFERS="128MB", PG_HUGE_PAGES="off", PG_DURABLE="0")
    return env


def services(root: Path, action: str) -> str:
    done = subprocess.run(["bash", str(root / "scripts" / "services.sh"), action],
                          env=_env(), capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr


def as_pg(*command: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run([*prefix, *command], input=stdin, capture_output=True, text=True,
                          cwd="/", timeout=60)  # fmt: skip


def psql(url: str, sql: str, password: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**_env(), "PGCONNECT_TIMEOUT": "10"}
    if password is not None:
        env["PGPASSWORD"] = password
    return subprocess.run([str(_pg_bin() / "psql"), url, "-w", "-tAc", sql], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def redis(port: str, *args: str, password: str = "") -> str:
    env = {**_env(), "REDISCLI_AUTH": password} if password else _env()
    done = subprocess.run(["redis-cli", "--no-auth-warning", "-p", port, *args], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    return done.stdout.strip() + done.stderr.strip()


def make_it_old(root: Path, pg_port: str, socket_dir: str, redis_port: str, secret: str) -> None:
    """What an older release left: trust on the socket, the password `copydetect`, Redis open,
    media 0644 under 0755, no secrets and no instance file."""
    pgdata = root / "var" / "postgres"
    (pgdata / "pg_hba.conf").write_text(
        "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
    )
    pg = _pg_bin()
    assert as_pg(str(pg / "pg_ctl"), "reload", "-D", str(pgdata)).returncode == 0
    sql = "ALTER ROLE copydetect PASSWORD 'copydetect'; SET ROLE copydetect; " \
          "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42);"  # fmt: skip
    done = as_pg(str(pg / "psql"), "-h", socket_dir, "-p", pg_port, "-U", "postgres",
                 "-d", "copydetect", "-v", "ON_ERROR_STOP=1", stdin=sql)  # fmt: skip
    assert done.returncode == 0, done.stderr
    redis(redis_port, "config", "set", "requirepass", "", password=secret)
    assert redis(redis_port, "ping") == "PONG"
    media = root / "var" / "media" / "originals"
    media.mkdir(parents=True)
    (media / "essay.txt").write_text("an essay")
    os.chmod(media, 0o755)
    os.chmod(media.parent, 0o755)
    os.chmod(media / "essay.txt", 0o644)
    shutil.rmtree(root / "var" / "secrets")
    (root / "var" / "instance.env").unlink()


def test_an_older_var_is_upgraded_in_place_and_keeps_its_data(tree):
    _pg_bin()
    services(tree, "start")
    values = instance.read(tree / "var" / "instance.env")
    pg_port = values["DATABASE_URL"].rsplit(":", 1)[1].split("/")[0]
    redis_port = values["CELERY_BROKER_URL"].rsplit(":", 1)[1].split("/")[0]
    socket_dir = subprocess.run(
        ["bash", "-c", f'source "{tree}/scripts/common.sh"; echo "$PGSOCKET"'],
        env={**_env(), "PGPORT": pg_port, "REDIS_PORT": redis_port},
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    make_it_old(tree, pg_port, socket_dir, redis_port,
                (tree / "var" / "secrets" / "redis").read_text())  # fmt: skip
    old_url = f"postgres://copydetect@127.0.0.1:{pg_port}/copydetect"
    was = psql(old_url, "SELECT x FROM kept", password="copydetect")
    assert was.stdout.strip() == "42", was.stderr

    # Running: upgraded live.
    said = services(tree, "start")
    assert "password authentication on" in said and "Redis answered without a password" in said
    assert "making" in said and "private" in said
    check_locked_down(tree, old_url, socket_dir, pg_port, redis_port)

    # Stopped, then started again (make services-start): the same, and the data is there.
    services(tree, "stop")
    services(tree, "start")
    check_locked_down(tree, old_url, socket_dir, pg_port, redis_port)


def check_locked_down(tree: Path, old_url: str, socket_dir: str, pg_port: str,
                      redis_port: str) -> None:  # fmt: skip
    values = instance.read(tree / "var" / "instance.env")
    assert psql(values["DATABASE_URL"], "SELECT x FROM kept").stdout.strip() == "42"
    assert psql(old_url, "SELECT 1", password="copydetect").returncode != 0
    # The socket asks for a password too (as root the directory does not stop us).
    local = psql(f"postgres://copydetect@/copydetect?host={socket_dir}&port={pg_port}",
                 "SELECT 1")  # fmt: skip
    assert local.returncode != 0 and "password" in local.stderr
    password = (tree / "var" / "secrets" / "redis").read_text()
    assert "NOAUTH" in redis(redis_port, "ping")
    assert redis(redis_port, "ping", password=password) == "PONG"
    media = tree / "var" / "media" / "originals"
    assert stat.S_IMODE(media.stat().st_mode) == 0o700
    assert stat.S_IMODE((media / "essay.txt").stat().st_mode) == 0o600
    assert (media / "essay.txt").read_text() == "an essay"
    for path in (tree / "var" / "instance.env", tree / "var" / "secrets" / "postgres"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
