"""Hand the messages of a dead worker back to their queues at once.

A worker takes a task's message and acknowledges it only when the task is done (`acks_late`).
Redis keeps the taken messages in its `unacked` hash; a worker that is killed leaves them there,
and kombu puts them back only after the broker's visibility timeout. The supervisor of
`make run` / `make serve` (scripts/children.sh) runs this before it starts the instance's only
worker again, so in-flight documents are delivered again within seconds, not after the timeout.

    python -m core.broker restore-unacked

Only while no worker of this broker runs: a live worker's messages would be delivered twice
(the tasks are idempotent, so that only wastes work).
"""

from __future__ import annotations

import os
import sys


def restore_unacked() -> int:
    """Every unacknowledged message back on its queue; returns how many."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    from config.celery import app

    restored = 0
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        qos = channel.qos
        with channel.conn_or_acquire() as client:
            for tag in client.hkeys(channel.unacked_key):
                qos.restore_by_tag(tag, client)
                restored += 1
    return restored


def main(argv: list[str]) -> int:
    if argv != ["restore-unacked"]:
        print("usage: python -m core.broker restore-unacked", file=sys.stderr)
        return 2
    count = restore_unacked()
    print(f"{count} unacknowledged message(s) put back on their queues")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
