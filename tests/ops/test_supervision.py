"""The supervisor of `make run` / `make serve` (scripts/children.sh): a child that dies is
started again and the log says so; one that keeps dying is given up; Ctrl-C stops them all.

The children here are stand-ins (sleep, exit) started by the scripts' own functions."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
POLLS = 600  # 0.1 s apart: a bound on each wait, not a timing claim


def _harness(tmp_path: Path, children: str, **env: str) -> subprocess.Popen[str]:
    script = f"""
source "{REPO}/scripts/common.sh"
source "{REPO}/scripts/children.sh"
children_init
trap cleanup EXIT
trap 'exit 0' INT
trap 'exit 143' TERM
{children}
supervise_children
"""
    environment = {**os.environ, "PGPORT": "1", "REDIS_PORT": "1", **env}
    # Ctrl-C must reach a shell that does not ignore it (a background job's shell would).
    return subprocess.Popen(
        ["bash", "-c", script], cwd=tmp_path, env=environment, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def _wait_for(condition, what: str) -> None:
    for _ in range(POLLS):
        if condition():
            return
        time.sleep(0.1)
    pytest.fail(f"never happened: {what}")


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def test_a_killed_child_is_restarted_and_ctrl_c_stops_everything(tmp_path):
    pids, log = tmp_path / "pids", tmp_path / "worker.log"
    children = (
        f"start_child worker '{log}' bash -c 'echo $$ >> {pids}; exec sleep 300'\n"
        f"start_child web - bash -c 'echo $$ >> {tmp_path}/web; exec sleep 300'"
    )
    harness = _harness(tmp_path, children)
    try:
        _wait_for(lambda: len(_pids(pids)) == 1 and _pids(tmp_path / "web"), "both started")
        first = _pids(pids)[0]
        os.kill(first, signal.SIGKILL)
        _wait_for(lambda: len(_pids(pids)) == 2, "the worker started again")
        second = _pids(pids)[1]
        assert second != first and _alive(second)
        text = log.read_text()
        assert "[supervisor] worker (pid" in text and "was killed (signal 9)" in text
        assert "restarting it in 1s" in text and "worker restarted" in text
        web = _pids(tmp_path / "web")[0]
        assert _alive(web)  # the other child was left alone

        harness.send_signal(signal.SIGINT)
        output, _ = harness.communicate(timeout=60)
    finally:
        if harness.poll() is None:
            harness.kill()
    assert harness.returncode == 0, output
    assert "stopped" in output
    assert not _alive(second) and not _alive(web)


def test_a_child_that_keeps_dying_is_given_up_and_everything_stops(tmp_path):
    pids = tmp_path / "pids"
    children = (
        f"start_child flaky - bash -c 'echo $$ >> {pids}; exit 3'\n"
        f"start_child steady - bash -c 'echo $$ >> {tmp_path}/steady; exec sleep 300'"
    )
    harness = _harness(tmp_path, children, RESTART_LIMIT="3")
    try:
        output, _ = harness.communicate(timeout=120)
    finally:
        if harness.poll() is None:
            harness.kill()
    assert harness.returncode == 1, output  # make reports the failure
    assert len(_pids(pids)) == 3
    assert "flaky (pid" in output and "exited with status 3" in output
    assert "restarting it in 1s" in output and "restarting it in 2s" in output
    assert "died 3 times in a row" in output and "giving up" in output
    assert not _alive(_pids(tmp_path / "steady")[0])
