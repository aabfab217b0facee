"""The one place that sends tasks to the broker, by task name, through an outbox.

Services name the task they want ("documents.process") instead of importing it, so no
service imports a task module (which imports the services).

Every message is first written to the outbox table (`core.models.OutboxMessage`) in the
current transaction, then sent: `enqueue` at once, `enqueue_on_commit` once the transaction
commits (the worker must see the rows the task will read). A sent message's row is deleted.
When the broker does not take it (Redis is down), the row stays and the periodic sweep sends
it later (`outbox_relay`): queuing never raises for a broker outage, so work that is done and
committed is never undone or failed because its follow-up could not be sent, and the follow-up
is not lost either (it is committed with the work that asked for it).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

import kombu.exceptions
import redis.exceptions
from celery import current_app
from django.db import DatabaseError, InterfaceError, transaction
from django.utils import timezone

from core.models import OutboxMessage

logger = logging.getLogger(__name__)

# A row is its writer's to send for this long; after it the sweep sends it.
WRITER_OWNS = timedelta(seconds=30)
# A row the sweep took is its to send for this long (then another sweep may take it).
RELAY_OWNS = timedelta(seconds=60)
RELAYED_AT_ONCE = 500

# What a broker that is down or unreachable raises from `send_task`.
BROKER_ERRORS: tuple[type[BaseException], ...] = (
    kombu.exceptions.OperationalError,
    redis.exceptions.RedisError,
    OSError,
)


def send(name: str, args: tuple[Any, ...], options: dict[str, Any]) -> None:
    """Send one task message (tests replace this function to run tasks in-process)."""
    current_app.send_task(name, args=args, **options)


def enqueue(name: str, *args: Any, queue: str | None = None, countdown: float = 0) -> None:
    """Queue task `name` with `args` now; `queue` overrides the route of its name. Never
    raises for a broker outage: the message then waits in the outbox."""
    _send([_write(name, args, queue, countdown)])


def enqueue_on_commit(
    name: str, *args: Any, queue: str | None = None, countdown: float = 0
) -> None:
    """Queue task `name` once the current transaction commits (at once outside one); the
    message is written now, so it is committed exactly when the transaction is."""
    message = _write(name, args, queue, countdown)
    transaction.on_commit(lambda: _send([message]))


def enqueue_many(
    name: str, args_list: Iterable[Sequence[Any]], *, queue: str | None = None
) -> None:
    """Queue task `name` once for each of `args_list` (one insert for all), sent once the
    current transaction commits (at once outside one)."""
    messages = OutboxMessage.objects.bulk_create(
        _message(name, tuple(args), queue, 0) for args in args_list
    )
    if messages:
        transaction.on_commit(lambda: _send(messages))


def outbox_relay(*, limit: int = RELAYED_AT_ONCE) -> int:
    """Send the outbox messages whose writer did not (the broker was down, the process
    ended); returns how many the broker took. Safe to run in several processes at once:
    each row is taken by one of them."""
    now = timezone.now()
    with transaction.atomic():
        ids = list(
            OutboxMessage.objects.filter(send_after__lte=now)
            .select_for_update(skip_locked=True)
            .order_by("id")
            .values_list("id", flat=True)[:limit]
        )
        OutboxMessage.objects.filter(id__in=ids).update(send_after=now + RELAY_OWNS)
    return _send(list(OutboxMessage.objects.filter(id__in=ids).order_by("id")))


def outbox_first_args(name: str) -> set[Any]:
    """The first argument (an id) of every message of task `name` still in the outbox."""
    rows = OutboxMessage.objects.filter(name=name).values_list("args", flat=True)
    return {args[0] for args in rows if args}


def _message(
    name: str, args: tuple[Any, ...], queue: str | None, countdown: float
) -> OutboxMessage:
    """An unsaved outbox row; its writer sends it, the sweep only after WRITER_OWNS."""
    return OutboxMessage(
        name=name,
        args=list(args),
        queue=queue or "",
        countdown=countdown,
        send_after=timezone.now() + WRITER_OWNS,
    )


def _write(name: str, args: tuple[Any, ...], queue: str | None, countdown: float) -> OutboxMessage:
    message = _message(name, args, queue, countdown)
    message.save()
    return message


def _send(messages: Sequence[OutboxMessage]) -> int:
    """Send `messages` in order and delete the rows of those the broker took; stops at the
    first the broker refuses (it is down: the rest would wait for it in turn)."""
    sent: list[int] = []
    for message in messages:
        options: dict[str, Any] = {}
        if message.queue:
            options["queue"] = message.queue
        if message.countdown:
            options["countdown"] = message.countdown
        try:
            send(message.name, tuple(message.args), options)
        except BROKER_ERRORS as error:
            logger.warning(
                "the broker did not take %s (%r); %d message(s) wait in the outbox",
                message, error, len(messages) - len(sent),
            )  # fmt: skip
            break
        sent.append(message.id)
    if sent:
        try:
            OutboxMessage.objects.filter(id__in=sent).delete()
        except (DatabaseError, InterfaceError):  # sent; the row left is sent again, harmlessly
            logger.warning("could not delete %d sent outbox row(s)", len(sent), exc_info=True)
    return len(sent)
