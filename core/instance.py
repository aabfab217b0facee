"""The environment file of this tree's running instance (`var/instance.env`).

`make run`, `make serve` and `make services-start` write it (mode 0600): the database and
broker URLs with this install's own passwords and ports. The settings load it first, so
`.venv/bin/python manage.py <command>` run from the repository root reaches that instance
without any variable set. A variable already in the environment always wins.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_NAME = "instance.env"


def read(path: Path) -> dict[str, str]:
    """`NAME=value` lines (no quoting; `#` comments and blank lines skipped); {} if absent or
    unreadable (another OS user's tree, a fresh clone)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, value = line.split("=", 1)
        values[name.strip()] = value.strip()
    return values


def load(var_dir: Path) -> dict[str, str]:
    """Put the instance's variables into os.environ where they are not set; returns those
    it set."""
    added = {}
    for name, value in read(var_dir / FILE_NAME).items():
        if name not in os.environ:
            os.environ[name] = value
            added[name] = value
    return added
