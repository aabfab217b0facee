"""The task outbox: messages for the broker written in the transaction that asks for them."""

from django.db import models


class OutboxMessage(models.Model):
    """A task message not yet accepted by the broker (`core.queue`). Written with the rows the
    task will read, so it exists exactly when they were committed; deleted once sent. A row
    left behind (the broker was down, the process died before sending) is sent by the sweep
    (`core.queue.outbox_relay`) once `send_after` has passed."""

    name = models.CharField(max_length=200)
    args = models.JSONField(default=list)
    queue = models.CharField(max_length=200, blank=True, default="")
    countdown = models.FloatField(default=0)
    # Until then the sender that wrote the row (or the relay that claimed it) owns it.
    send_after = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.name}{tuple(self.args)}"
