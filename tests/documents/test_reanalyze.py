"""After an upgrade that changes the feature model, the documents analysed before are found
(stale), queued again by the command, the collection page or the service, and compared again."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from documents import selectors, services
from documents import tasks as document_tasks
from documents.models import Document
from tests.documents.factories import WATER, WATER_COPIED, intercept_task, processed, upload

pytestmark = pytest.mark.django_db

OLDER = "lis0;an-earlier-release"


def as_older_model(document: Document) -> None:
    """Leave the document as an earlier release indexed it: its postings and its row carry
    another feature model."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO documents_index_model (model_version) VALUES (%s)"
            " ON CONFLICT (model_version) DO NOTHING",
            [OLDER],
        )
        cursor.execute(
            "UPDATE documents_posting SET model ="
            " (SELECT id FROM documents_index_model WHERE model_version = %s)"
            " WHERE ref >> 32 = %s",
            [OLDER, document.id],
        )
    Document.objects.filter(id=document.id).update(model_version=OLDER)


def source_ids(document: Document) -> set[int]:
    return {s.document for s in selectors.report_get(document=document).sources}


def test_documents_of_an_older_model_are_stale_and_compared_again_once_reanalysed(
    assignment, worker
):
    source = processed(assignment, "source.txt", WATER.encode())
    as_older_model(source)
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    assert source_ids(copier) == set()  # the older analysis is not comparable
    assert list(selectors.documents_stale()) == [source]

    with worker.capture(execute=True):
        assert services.documents_reanalyze(documents=selectors.documents_stale()) == 1
    source.refresh_from_db()
    assert source.status == Document.Status.QUEUED
    assert worker.queue == [source.id]
    worker.run()

    source.refresh_from_db()
    assert (source.status, source.model_version) == (
        Document.Status.DONE,
        selectors.current_model_version(),
    )
    assert not selectors.documents_stale().exists()
    assert source_ids(copier) == {source.id}  # its matches are stored both ways
    assert source_ids(source) == {copier.id}


def test_reanalyze_leaves_queued_documents_alone(assignment, worker):
    done = processed(assignment, "source.txt", WATER.encode())
    waiting = upload(assignment, "copier.txt", WATER_COPIED.encode())
    with worker.capture(execute=True):
        assert services.documents_reanalyze(documents=Document.objects.all()) == 1
    assert worker.queue == [done.id]
    waiting.refresh_from_db()
    assert waiting.status == Document.Status.QUEUED


def test_the_command_queues_the_stale_documents(assignment, worker):
    source = processed(assignment, "source.txt", WATER.encode())
    processed(assignment, "copier.txt", WATER_COPIED.encode())
    as_older_model(source)
    out = io.StringIO()
    call_command("reanalyze", "--dry-run", stdout=out)
    assert "\n1 document(s) analysed with another feature model" in out.getvalue()
    assert worker.queue == []

    out = io.StringIO()
    with worker.capture(execute=True):
        call_command("reanalyze", "--collection", str(assignment.id), stdout=out)
    assert "\nQueued 1 document(s)" in out.getvalue()
    assert worker.queue == [source.id]

    out = io.StringIO()
    call_command("reanalyze", stdout=out)  # already queued: nothing twice
    assert "\nNothing to re-analyse" in out.getvalue()


def test_the_command_refuses_an_unknown_collection():
    with pytest.raises(CommandError, match="No collection with id 424242"):
        call_command("reanalyze", "--collection", "424242")


def test_the_collection_page_offers_to_reanalyse_its_stale_documents(
    client, owner, assignment, worker
):
    source = processed(assignment, "source.txt", WATER.encode())
    client.force_login(owner)
    page = client.get(f"/collections/{assignment.id}/").content.decode()
    assert 'id="stale"' not in page

    as_older_model(source)
    page = client.get(f"/collections/{assignment.id}/").content.decode()
    assert 'id="stale"' in page
    assert "1 document of this collection and its archives was analysed" in page

    with worker.capture(execute=True):
        response = client.post(f"/collections/{assignment.id}/reanalyze/", follow=True)
    assert "1 document(s) queued for analysis again." in response.content.decode()
    assert worker.queue == [source.id]
    worker.run()
    page = client.get(f"/collections/{assignment.id}/").content.decode()
    assert 'id="stale"' not in page


def test_another_users_collection_cannot_be_reanalysed(client, stranger, assignment):
    client.force_login(stranger)
    assert client.post(f"/collections/{assignment.id}/reanalyze/").status_code == 404


def test_the_broker_tells_which_documents_have_a_message_waiting():
    """On the real Redis: a message queued and one delivered but not acknowledged."""
    import json
    import os

    from config.celery import app
    from core import broker

    queue, unacked = f"broker-test-{os.getpid()}", f"unacked-test-{os.getpid()}"
    document_tasks.document_process_task.apply_async(args=[41], queue=queue)
    document_tasks.document_process_task.apply_async(args=[42], queue=queue)
    with app.connection_for_write() as connection:
        client = connection.default_channel.client
        try:
            delivered = client.rpop(queue)  # as a worker takes it (kombu keeps it in unacked)
            client.hset(unacked, "tag", json.dumps([json.loads(delivered), "", queue]))
            assert broker.waiting_document_ids(queue, unacked) == {41, 42}
            client.hset(unacked, "other", json.dumps([{"headers": {"task": "x"}}, "", queue]))
            assert broker.waiting_document_ids(queue, unacked) == {41, 42}
            client.hset(unacked, "garbled", "not json")
            assert broker.waiting_document_ids(queue, unacked) is None
        finally:
            client.delete(queue, unacked)


def test_unfinished_documents_whose_message_was_lost_are_queued_again(
    assignment, worker, monkeypatch
):
    from core import broker

    done = processed(assignment, "source.txt", WATER.encode())
    lost = upload(assignment, "lost.txt", WATER_COPIED.encode())  # its message was never sent
    waiting = upload(assignment, "waiting.txt", WATER_COPIED.encode())
    interrupted = upload(assignment, "interrupted.txt", WATER_COPIED.encode())
    Document.objects.filter(id=interrupted.id).update(
        status=Document.Status.PROCESSING, progress=45
    )
    monkeypatch.setattr(broker, "waiting_document_ids", lambda: {waiting.id})
    with worker.capture(execute=True):
        assert services.documents_resume() == 2
    assert worker.queue == [lost.id, interrupted.id]
    interrupted.refresh_from_db()
    assert (interrupted.status, interrupted.progress) == (Document.Status.QUEUED, 0)
    worker.run()
    statuses = dict(Document.objects.values_list("id", "status"))
    assert statuses[lost.id] == statuses[interrupted.id] == statuses[done.id] == "done"
    assert statuses[waiting.id] == "queued"  # its message is still in the broker

    # The broker cannot be read: every unfinished document is queued (twice at worst).
    monkeypatch.setattr(broker, "waiting_document_ids", lambda: None)
    with worker.capture(execute=True):
        assert services.documents_resume() == 1
    assert worker.queue == [waiting.id]


def test_the_command_resumes_unfinished_documents(assignment, worker, monkeypatch):
    from core import broker

    lost = upload(assignment, "lost.txt", WATER_COPIED.encode())
    monkeypatch.setattr(broker, "waiting_document_ids", lambda: set())
    out = io.StringIO()
    with worker.capture(execute=True):
        call_command("reanalyze", "--unfinished", stdout=out)
    assert out.getvalue().startswith("Queued 1 unfinished document(s)")
    assert worker.queue == [lost.id]


def test_uploads_are_taken_before_bulk_rechecks_on_the_real_broker():
    """A worker consumes the documents queue before the bulk one (queue_order_strategy
    "priority"): an upload does not wait behind the re-check of a whole archive."""
    import os
    import socket

    from kombu import Consumer

    from config.celery import app
    from config.settings.base import _queue

    # Queues of their own, declared as the settings declare theirs (CELERY_TASK_QUEUES).
    interactive = _queue(f"order-test-{os.getpid()}")
    bulk = _queue(f"{interactive.name}-bulk")
    task = document_tasks.document_process_task
    taken: list[int] = []

    def take(body, message):  # type: ignore[no-untyped-def]
        taken.append(body[0][0])  # Celery's message: [args, kwargs, embed]
        message.ack()

    with app.connection_for_read() as connection:
        try:
            for queue in (interactive, bulk):
                queue(connection.default_channel).declare()
            for document_id in (1, 2):
                task.apply_async((document_id,), queue=bulk)
            task.apply_async((3,), queue=interactive)
            queues = [interactive, bulk]  # in the order of CELERY_TASK_QUEUES
            with Consumer(connection, queues=queues, callbacks=[take], accept=["json"]):
                while len(taken) < 3:
                    connection.drain_events(timeout=10)
                with pytest.raises(socket.timeout):  # each message went to one queue only
                    connection.drain_events(timeout=1)
        finally:
            connection.default_channel.client.delete(interactive.name, bulk.name)
    assert taken == [3, 1, 2]


def test_re_checks_of_many_documents_go_to_the_bulk_queue(
    assignment, monkeypatch, settings, django_capture_on_commit_callbacks
):
    done = processed(assignment, "water.txt", WATER.encode())
    sent: list[tuple[int, str]] = []
    intercept_task(
        monkeypatch,
        document_tasks.document_process_task.name,
        lambda document_id, queue: sent.append((document_id, queue)),
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.collection_recheck(collection_id=assignment.id)
    assert sent == [(done.id, settings.DOCUMENTS_BULK_QUEUE)]


def test_turning_term_retrieval_on_makes_documents_stale_until_analysed_with_terms(
    settings, archive, assignment, worker
):
    from tests.detection.paraphrase import PARAPHRASE, SOURCE

    source = processed(archive, "source.txt", SOURCE.encode())
    settings.DETECTION_TERM_RETRIEVAL = True
    assert list(selectors.documents_stale()) == [source]
    copy = processed(assignment, "copy.txt", PARAPHRASE.encode())
    assert source_ids(copy) == set()  # the source's analysis has no terms to be found by

    with worker.capture(execute=True):
        assert services.documents_reanalyze(documents=selectors.documents_stale()) == 1
    worker.run()
    assert not selectors.documents_stale().exists()
    with worker.capture(execute=True):  # checked again: found through the source's words
        services.documents_reanalyze(documents=Document.objects.filter(id=copy.id))
    worker.run()
    assert source_ids(copy) == {source.id}
