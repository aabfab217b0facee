"""Self-healing: follow-up work goes through the outbox (a broker outage delays it and never
fails a processed document), and the periodic sweep queues again the work nobody holds a
lease on (a dead worker's, a lost message's), never a live task's."""

from __future__ import annotations

import time
from datetime import timedelta

import kombu.exceptions
import pytest
from django.utils import timezone

from core import broker, lease, queue
from core.models import OutboxMessage
from dedup.models import DedupRun
from dedup.task_names import ASSIGN_TASK, RUN_TASK
from documents import services
from documents import tasks as document_tasks
from documents.models import ArchiveImport, Collection, Document
from documents.task_names import DELETE_TASK, IMPORT_TASK, PROCESS_TASK
from tests.documents.factories import WATER, WATER_COPIED, processed, upload

pytestmark = pytest.mark.django_db


class Broker:
    """`core.queue.send` replaced: messages recorded by task name while `up`, else refused
    as kombu refuses them when Redis is down."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.up = True
        self.sent: dict[str, list[tuple]] = {}
        monkeypatch.setattr(queue, "send", self.send)
        monkeypatch.setattr(broker, "waiting_ids", lambda *_, **__: set())

    def send(self, name: str, args: tuple, options: dict) -> None:
        if not self.up:
            raise kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:63790.")
        self.sent.setdefault(name, []).append(tuple(args))


def outbox_due() -> None:
    """Let the outbox's rows be the sweep's to send (their writer's time is over)."""
    OutboxMessage.objects.update(send_after=timezone.now() - timedelta(seconds=1))


def test_a_broker_outage_after_processing_leaves_the_document_done_and_its_follow_up_waiting(
    assignment, monkeypatch, django_capture_on_commit_callbacks
):
    redis = Broker(monkeypatch)
    redis.up = False
    with django_capture_on_commit_callbacks(execute=True):
        document = processed(assignment, "source.txt", WATER.encode())
    assert (document.status, document.error) == (Document.Status.DONE, "")
    waiting = {
        (name, tuple(args)) for name, args in OutboxMessage.objects.values_list("name", "args")
    }
    assert waiting == {(PROCESS_TASK, (document.id,)), (ASSIGN_TASK, (document.id,))}
    assert redis.sent == {}

    redis.up = True
    assert queue.outbox_relay() == 0  # still their writer's: nothing is sent twice
    outbox_due()
    assert queue.outbox_relay() == 2
    assert redis.sent == {PROCESS_TASK: [(document.id,)], ASSIGN_TASK: [(document.id,)]}
    assert not OutboxMessage.objects.exists()


def test_a_message_is_written_with_the_transaction_that_asks_for_it(assignment, monkeypatch):
    from django.db import transaction

    redis = Broker(monkeypatch)

    class Undone(Exception):
        pass

    with pytest.raises(Undone), transaction.atomic():
        upload(assignment, "undone.txt", WATER.encode())
        assert OutboxMessage.objects.filter(name=PROCESS_TASK).exists()
        raise Undone
    assert not OutboxMessage.objects.exists()
    assert redis.sent == {}


def test_the_sweep_queues_again_only_the_documents_nobody_holds(
    assignment, monkeypatch, django_capture_on_commit_callbacks
):
    redis = Broker(monkeypatch)
    now = timezone.now()
    past, future = now - timedelta(seconds=5), now + timedelta(seconds=60)
    unseen = upload(assignment, "unseen.txt", WATER.encode())
    lost = upload(assignment, "lost.txt", WATER_COPIED.encode())
    live = upload(assignment, "live.txt", WATER.encode())
    in_broker = upload(assignment, "in-broker.txt", WATER.encode())
    in_outbox = upload(assignment, "in-outbox.txt", WATER.encode())
    done = processed(assignment, "done.txt", WATER_COPIED.encode())
    OutboxMessage.objects.all().delete()
    Document.objects.filter(id=unseen.id).update(lease_until=None)
    Document.objects.filter(id__in=[lost.id, in_broker.id, in_outbox.id, done.id]).update(
        lease_until=past
    )
    Document.objects.filter(id__in=[lost.id, live.id]).update(
        status=Document.Status.PROCESSING, progress=45
    )
    Document.objects.filter(id=live.id).update(lease_until=future)
    monkeypatch.setattr(broker, "waiting_ids", lambda *_: {in_broker.id})
    queue.enqueue_on_commit(PROCESS_TASK, in_outbox.id)
    redis.sent.clear()

    with django_capture_on_commit_callbacks(execute=True):
        assert services.documents_stale_requeue() == 1
    assert redis.sent == {PROCESS_TASK: [(lost.id,)]}
    rows = {d.id: d for d in Document.objects.all()}
    assert (rows[lost.id].status, rows[lost.id].progress) == (Document.Status.QUEUED, 0)
    assert rows[lost.id].lease_until > now  # not queued again by the next sweep
    assert rows[unseen.id].lease_until > now  # seen now: queued again after the grace
    assert rows[live.id].status == Document.Status.PROCESSING

    redis.sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.documents_stale_requeue() == 0
    assert redis.sent == {}


def test_the_sweep_task_relays_the_outbox_and_resumes_every_kind_of_work(
    assignment, archive, monkeypatch, django_capture_on_commit_callbacks
):
    redis = Broker(monkeypatch)
    past = timezone.now() - timedelta(seconds=5)
    job = ArchiveImport.objects.create(
        collection=archive, names="batch.zip", status=ArchiveImport.Status.RUNNING
    )
    run = DedupRun.objects.create(
        collection=assignment, method="periods", status=DedupRun.Status.RUNNING
    )
    going = services.collection_create(owner=assignment.owner, name="Going")
    Collection.objects.filter(id=going.id).update(deleting=True)
    queue.enqueue_on_commit(ASSIGN_TASK, 7)  # a message the broker did not take
    for model in (ArchiveImport, DedupRun, Collection):
        model.objects.update(lease_until=past)
    outbox_due()
    redis.sent.clear()

    with django_capture_on_commit_callbacks(execute=True):
        document_tasks.work_sweep_task()
    assert redis.sent == {
        ASSIGN_TASK: [(7,)],
        IMPORT_TASK: [(job.id,)],
        RUN_TASK: [(run.id,)],
        DELETE_TASK: [(going.id,)],
    }


def test_a_task_holds_the_lease_of_its_document(assignment, monkeypatch):
    Broker(monkeypatch)
    document = upload(assignment, "held.txt", WATER.encode())
    seen: list = []
    real = services.document_process

    def process(**kwargs: object) -> None:
        seen.append(Document.objects.get(id=document.id).lease_until)
        real(**kwargs)

    monkeypatch.setattr(services, "document_process", process)
    started = timezone.now()
    document_tasks.document_process_task(document.id)
    assert seen[0] >= started + timedelta(seconds=lease.lease_seconds() - 1)
    assert Document.objects.get(id=document.id).status == Document.Status.DONE


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_renews_a_lease_while_the_task_runs(owner, settings):
    settings.LEASE_SECONDS = 0.6  # a heartbeat every 0.2 s
    collection = services.collection_create(owner=owner, name="Beats")
    rows = Collection.objects.filter(id=collection.id)
    with lease.held(rows):
        first = rows.get().lease_until
        deadline = time.monotonic() + 30
        while rows.get().lease_until == first and time.monotonic() < deadline:
            time.sleep(0.1)
        assert rows.get().lease_until > first


def test_a_text_over_the_size_limit_fails_with_a_clear_message(assignment, settings, monkeypatch):
    Broker(monkeypatch)
    settings.MAX_TEXT_CHARS = 100
    document = processed(assignment, "long.txt", (WATER + "\n\n" + WATER).encode())
    assert document.status == Document.Status.FAILED
    assert document.error == (
        f"long.txt: its text is {len(WATER) * 2 + 2:,} characters long; the limit is 100. "
        "Split it into smaller documents."
    )


def test_an_assignment_out_of_retries_on_a_database_outage_is_sent_again(monkeypatch):
    import psycopg
    from django.db import OperationalError

    from dedup import tasks as dedup_tasks

    redis = Broker(monkeypatch)

    def down(document_id: int) -> None:
        refused = psycopg.OperationalError("connection failed: connection refused")
        raise OperationalError("connection failed") from refused

    monkeypatch.setattr(dedup_tasks, "_assign", down)
    dedup_tasks.dedup_assign_document(5)  # called directly: its last attempt
    assert redis.sent == {ASSIGN_TASK: [(5,)]}
