"""The candidate index a worker process keeps per run (dedup.run_index): it reads the
signatures stored since it last looked, starts afresh after a re-run, and drops a member
deleted with its document when a lookup proposes it."""

from __future__ import annotations

import pytest
from django.db import connection

from dedup import run_index, services
from dedup.models import ClusterMember, DedupRun
from documents import services as document_services
from tests.dedup.conftest import STORY_0, STORY_1, STORY_5, STORY_6
from tests.documents.factories import intercept_task

pytestmark = pytest.mark.django_db


def start_run(collection, owner) -> DedupRun:
    run = services.dedup_run_start(collection=collection, method="periods")
    services.dedup_run_execute(run_id=run.id)
    run.refresh_from_db()
    return run


def cluster(run: DedupRun, document) -> int:
    return ClusterMember.objects.get(run=run, document=document).cluster


def test_signatures_stored_after_the_process_read_the_run_are_read_on_the_next_assignment(
    collection, owner, add_pages
):
    add_pages(*STORY_0, *STORY_6)
    run = start_run(collection, owner)
    late = add_pages(STORY_1[0], STORY_1[2])

    (first,) = services.dedup_document_assign(document=late[STORY_1[0]])
    # The process read the run before this signature was stored, as a process that did not
    # store it would have: the next assignment must read it to find the reprint.
    held = run_index.held(run.id)
    assert held is not None and late[STORY_1[0]].id not in held.stored
    (second,) = services.dedup_document_assign(document=late[STORY_1[2]])

    assert first.relation == "centre"
    assert second.cluster == first.cluster
    assert second.relation in ("duplicate", "containment")
    held = run_index.run_index(run)
    assert held is not None and {late[STORY_1[0]].id, late[STORY_1[2]].id} <= set(held.stored)


def test_a_run_executed_again_is_read_afresh(collection, owner, add_pages):
    pages = add_pages(*STORY_0, STORY_1[0])
    run = start_run(collection, owner)
    early = add_pages(STORY_1[2])[STORY_1[2]]
    services.dedup_document_assign(document=early)  # the process holds the run now
    before = run_index.held(run.id)
    assert before is not None and early.id not in before.stored  # it read before storing

    services.dedup_run_execute(run_id=run.id)  # again: its clusters and signatures replaced
    run.refresh_from_db()
    late = add_pages(STORY_1[3])[STORY_1[3]]  # after the run: streamed, not clustered
    (placed,) = services.dedup_document_assign(document=late)

    after = run_index.held(run.id)
    assert after is not None and after is not before and after.key[1] == run.finished
    assert set(after.stored) == {*(p.id for p in pages.values()), early.id}
    assert placed.cluster == cluster(run, pages[STORY_1[0]])  # its story, as re-run
    assert placed.relation in ("duplicate", "containment", "different")


def test_a_best_match_deleted_since_the_process_read_it_is_dropped(collection, owner, add_pages):
    story = add_pages(*STORY_1[:2])
    add_pages(*STORY_6)
    run = start_run(collection, owner)
    late = add_pages(STORY_5[0], STORY_1[2])
    services.dedup_document_assign(document=late[STORY_5[0]])  # the process holds the run now
    held = run_index.run_index(run)
    assert held is not None and {page.id for page in story.values()} <= set(held.stored)
    for page in story.values():
        document_services.document_delete(document=page)

    (placed,) = services.dedup_document_assign(document=late[STORY_1[2]])

    assert placed.relation == "centre"  # its story's pages are gone: a cluster of its own
    assert placed.cluster not in {cluster(run, late[STORY_5[0]])}
    assert not {page.id for page in story.values()} & set(held.stored)


def analyses() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT relname, analyze_count FROM pg_stat_user_tables"
            " WHERE relname IN ('dedup_signature', 'dedup_clustermember')"
        )
        return dict(cursor.fetchall())


@pytest.mark.parametrize(("threshold", "analysed"), [(2, True), (3, False)])
def test_a_run_storing_many_signatures_refreshes_their_statistics(
    collection, owner, add_pages, monkeypatch, threshold, analysed
):
    add_pages(*STORY_0)  # two documents
    monkeypatch.setattr(services, "ANALYZE_AFTER", threshold)
    before = analyses()
    start_run(collection, owner)
    after = analyses()
    for table in ("dedup_signature", "dedup_clustermember"):
        assert (after.get(table, 0) > before.get(table, 0)) is analysed, table


def test_runs_left_unfinished_are_queued_again_at_start_up(collection, owner, monkeypatch):
    from dedup.tasks import dedup_run_task

    queued: list[int] = []
    intercept_task(monkeypatch, dedup_run_task.name, queued.append)
    waiting = DedupRun.objects.create(collection=collection, method="periods")
    cut = DedupRun.objects.create(collection=collection, method="minhash", status="running")
    DedupRun.objects.create(collection=collection, method="ddw", status="done")
    DedupRun.objects.create(collection=collection, method="simhash", status="failed")

    assert services.dedup_runs_resume() == 2
    assert sorted(queued) == sorted([waiting.id, cut.id])


def test_a_signature_stored_by_another_process_before_the_lock_is_read_under_it(
    collection, owner, add_pages, monkeypatch
):
    from dedup.models import Signature
    from detection.neardup.encoding import signature_encode

    add_pages(*STORY_0)
    run = start_run(collection, owner)
    late = add_pages(STORY_1[0], STORY_1[2])
    other, mine = late[STORY_1[0]], late[STORY_1[2]]
    real_lock = services._lock_run

    def lock_after_another_process_stored(run_id: int):  # type: ignore[no-untyped-def]
        # Between this process's unlocked read and its lock, another process assigns
        # `other` (a page of the same story), writing the rows as `_member_join` does.
        held = run_index.held(run_id)
        assert held is not None and other.id not in held.stored
        run_row = DedupRun.objects.get(id=run_id)
        Signature.objects.create(
            run=run_row,
            document=other,
            method=run_row.method,
            signature_version=run_row.signature_version,
            data=signature_encode(run_row.method, held.method.signature(other.text)),
        )
        ClusterMember.objects.create(
            run=run_row, cluster=999, document=other, relation="centre", score=1.0
        )
        return real_lock(run_id)

    monkeypatch.setattr(services, "_lock_run", lock_after_another_process_stored)

    (placed,) = services.dedup_document_assign(document=mine)

    assert placed.run_id == run.id
    assert placed.cluster == 999  # found through the signature read under the lock
    assert placed.relation in ("duplicate", "containment")
