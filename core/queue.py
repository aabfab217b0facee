"""The one place that sends tasks to the broker, by task name.

Services name the task they want ("documents.process") instead of importing it, so no
service imports a task module (which imports the services). `enqueue_on_commit` sends after
the surrounding transaction commits: the worker must see the rows the task will read.
"""

from __future__ import annotations

from typing import Any

from celery import current_app
from django.db import transaction


def send(name: str, args: tuple[Any, ...], options: dict[str, Any]) -> None:
    """Send one task message (tests replace this function to run tasks in-process)."""
    current_app.send_task(name, args=args, **options)


def enqueue(name: str, *args: Any, queue: str | None = None, countdown: float = 0) -> None:
    """Queue task `name` with `args` now; `queue` overrides the route of its name."""
    options: dict[str, Any] = {}
    if queue is not None:
        options["queue"] = queue
    if countdown:
        options["countdown"] = countdown
    send(name, args, options)


def enqueue_on_commit(
    name: str, *args: Any, queue: str | None = None, countdown: float = 0
) -> None:
    """Queue task `name` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: enqueue(name, *args, queue=queue, countdown=countdown))
