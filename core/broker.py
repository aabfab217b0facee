"""Which documents have a processing message waiting in the broker (Redis).

A document stays `queued` or `processing` if its message is lost: Redis stopped without
persistence, or a worker died and the message was never redelivered. The start-up sweep
(`manage.py reanalyze --unfinished`) and the periodic one (`core.lease.stale_ids`) queue such
work again, and read the broker first so that work whose message is still there is not done
twice.

Messages are read as kombu's Redis transport stores them (Celery's message protocol 2): a list
per queue (and per priority step, keys `<queue>\\x06\\x16<priority>`), plus the `unacked` hash of
messages delivered to a worker but not acknowledged (`acks_late`), whose values are
`[message, exchange, routing_key]`. A message's body is base64 JSON `[args, kwargs, embed]`.

A worker that is killed leaves its taken messages in the `unacked` hash, and kombu puts them
back only after the broker's visibility timeout. The supervisor of `make run` / `make serve`
(scripts/children.sh) runs `python -m core.broker restore-unacked` before it starts the
instance's only worker again, so in-flight documents are delivered again within seconds. Only
while no worker of this broker runs: a live worker's messages would be delivered twice (the
tasks are idempotent, so that only wastes work).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import sys
from collections.abc import Iterable

import django
from celery import current_app
from django.conf import settings

logger = logging.getLogger(__name__)

PROCESS_TASK = "documents.process"
UNACKED = "unacked"  # kombu.transport.redis.Channel.unacked_key
_PRIORITY_SEPARATOR = "\x06\x16"


def waiting_document_ids(queue: str | None = None, unacked_key: str = UNACKED) -> set[int] | None:
    """Ids of the documents with a `documents.process` message in `queue` (default: the
    documents queue and its bulk queue) or delivered and not acknowledged; None when the
    broker cannot be read or holds a message this module does not understand (then the
    caller assumes nothing)."""
    return waiting_ids(PROCESS_TASK, queue=queue, unacked_key=unacked_key)


def waiting_ids(
    task_name: str, *, queue: str | None = None, unacked_key: str | None = None
) -> set[int] | None:
    """The first arguments (ids) of the `task_name` messages waiting in `queue` (default: the
    documents queue and its bulk queue), and with `unacked_key` of those delivered and not
    acknowledged; None when the broker cannot be read or holds a message this module does
    not understand (then the caller assumes nothing)."""
    queues = [queue] if queue else [settings.DOCUMENTS_QUEUE, settings.DOCUMENTS_BULK_QUEUE]
    try:
        with current_app.connection_for_read() as connection:
            client = connection.default_channel.client
            keys = [
                key
                for name in queues
                for key in (name, *client.keys(f"{name}{_PRIORITY_SEPARATOR}*"))
            ]
            raw = [message for key in keys for message in client.lrange(key, 0, -1)]
            unacked = (
                [json.loads(value)[0] for value in client.hvals(unacked_key)] if unacked_key else []
            )
        return _first_args(task_name, [json.loads(message) for message in raw] + unacked)
    except Exception:  # noqa: BLE001 - any failure means "unknown", never a guess
        logger.warning("could not read the broker's queued messages", exc_info=True)
        return None


def _first_args(task_name: str, messages: Iterable[dict]) -> set[int]:
    ids: set[int] = set()
    for message in messages:
        if message.get("headers", {}).get("task") != task_name:
            continue
        args, kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        ids.add(int(args[0] if args else next(iter(kwargs.values()))))
    return ids


def restore_unacked() -> int:
    """Every unacknowledged message back on its queue; returns how many."""
    restored = 0
    with current_app.connection_for_write() as connection:
        channel = connection.default_channel
        qos = channel.qos
        with channel.conn_or_acquire() as client:
            for tag in client.hkeys(channel.unacked_key):
                qos.restore_by_tag(tag, client)
                restored += 1
    return restored


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    django.setup()  # importing the settings package creates the Celery app (config/__init__.py)
    if argv != ["restore-unacked"]:
        print("usage: python -m core.broker restore-unacked", file=sys.stderr)
        return 2
    count = restore_unacked()
    print(f"{count} unacknowledged message(s) put back on their queues")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
