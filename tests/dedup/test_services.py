"""Runs over real reprint pages, re-runs, and streaming assignment of new documents."""

from __future__ import annotations

import pytest

from dedup import services
from dedup.models import ClusterMember, DedupRun, Signature
from documents import services as document_services
from tests.dedup.conftest import STORY_0, STORY_1, STORY_5, STORY_6

pytestmark = pytest.mark.django_db


def run_now(collection, owner, method: str = "periods") -> DedupRun:
    """Start a run and execute it here, as the worker would."""
    run = services.dedup_run_start(collection=collection, method=method)
    services.dedup_run_execute(run_id=run.id)
    run.refresh_from_db()
    return run


def cluster_of(run: DedupRun) -> dict[int, int]:
    return dict(ClusterMember.objects.filter(run=run).values_list("document_id", "cluster"))


def ids(pages: dict, names) -> list[int]:
    return [pages[name].id for name in names]


@pytest.mark.parametrize("method", ["periods", "minhash", "ddw"])
def test_known_reprints_end_in_one_cluster_and_other_stories_do_not(
    collection, owner, add_pages, method
):
    pages = add_pages(*STORY_0, *STORY_1, *STORY_5[:1])
    run = run_now(collection, owner, method)
    assert (run.status, run.progress, run.error) == ("done", 100, "")
    clusters = cluster_of(run)
    assert len({clusters[i] for i in ids(pages, STORY_0)}) == 1
    assert len({clusters[i] for i in ids(pages, STORY_1)}) == 1
    # doc00015 is another story on doc00002's site: the shared template must not join them.
    assert clusters[pages[STORY_5[0]].id] not in {clusters[i] for i in ids(pages, STORY_0)}
    assert clusters[pages[STORY_0[0]].id] != clusters[pages[STORY_1[0]].id]


def test_members_carry_their_relation_to_the_centre(collection, owner, add_pages):
    pages = add_pages(*STORY_1)
    run = run_now(collection, owner)
    rows = {m.document_id: m for m in ClusterMember.objects.filter(run=run)}
    assert sorted(m.relation for m in rows.values()).count("centre") == 1
    # doc00004 is doc00003's article followed by another one: it contains the others.
    assert rows[pages["doc00004.txt"].id].relation in ("containment", "centre")
    assert all(0 < m.score <= 1 for m in rows.values())
    assert Signature.objects.filter(run=run).count() == 4
    assert run.signature_version.startswith("periods")


def test_a_rerun_replaces_its_members(collection, owner, add_pages):
    add_pages(*STORY_0)
    run = run_now(collection, owner)
    before = sorted(ClusterMember.objects.filter(run=run).values_list("document_id", "cluster"))
    services.dedup_run_execute(run_id=run.id)
    after = sorted(ClusterMember.objects.filter(run=run).values_list("document_id", "cluster"))
    assert before == after
    assert Signature.objects.filter(run=run).count() == 2


def test_only_processed_documents_are_clustered(collection, owner, add_pages):
    pages = add_pages(*STORY_0)
    pages[STORY_0[1]].__class__.objects.filter(id=pages[STORY_0[1]].id).update(status="failed")
    run = run_now(collection, owner)
    assert list(cluster_of(run)) == [pages[STORY_0[0]].id]


def test_an_unknown_method_is_refused_with_the_valid_ones(collection, owner):
    with pytest.raises(services.UnknownMethod, match="periods") as error:
        services.dedup_run_start(collection=collection, method="nope")
    assert "minhash" in str(error.value)
    assert not DedupRun.objects.exists()


def test_a_new_reprint_streams_into_its_story_cluster(collection, owner, add_pages):
    pages = add_pages(*STORY_0, *STORY_1[:3], STORY_5[0])
    run = run_now(collection, owner)
    clusters = cluster_of(run)

    late = add_pages(STORY_1[3], STORY_5[1], *STORY_6)
    placed = {
        m.document_id: m for d in late.values() for m in services.dedup_document_assign(document=d)
    }

    assert placed[late[STORY_1[3]].id].cluster == clusters[pages[STORY_1[0]].id]
    assert placed[late[STORY_1[3]].id].relation in ("duplicate", "containment", "different")
    assert placed[late[STORY_5[1]].id].cluster == clusters[pages[STORY_5[0]].id]
    lonely = placed[late[STORY_6[0]].id]
    assert lonely.relation == "centre"
    assert lonely.cluster not in clusters.values()
    assert Signature.objects.filter(run=run).count() == len(pages) + len(late)


def test_streaming_is_idempotent_and_skips_collections_without_a_run(collection, owner, add_pages):
    pages = add_pages(*STORY_0)
    assert services.dedup_document_assign(document=pages[STORY_0[0]]) == []
    run = run_now(collection, owner)
    late = add_pages(STORY_0[0])[STORY_0[0]]  # the same page uploaded again
    first = services.dedup_document_assign(document=late)
    again = services.dedup_document_assign(document=late)
    assert [m.id for m in first] == [m.id for m in again]
    assert first[0].cluster == cluster_of(run)[pages[STORY_0[0]].id]
    assert first[0].relation == "duplicate" and first[0].score == pytest.approx(1.0)


def test_streaming_feeds_the_latest_finished_run_of_each_method(collection, owner, add_pages):
    add_pages(*STORY_0)
    old = run_now(collection, owner, "periods")
    newer = run_now(collection, owner, "periods")
    other = run_now(collection, owner, "minhash")
    late = add_pages(STORY_0[0])[STORY_0[0]]
    runs = sorted(m.run_id for m in services.dedup_document_assign(document=late))
    assert runs == sorted([newer.id, other.id])
    assert not ClusterMember.objects.filter(run=old, document=late).exists()


def test_streaming_survives_a_deleted_centre(collection, owner, add_pages):
    add_pages(*STORY_1[:3])
    run = run_now(collection, owner)
    centre = ClusterMember.objects.get(run=run, relation="centre").document
    cluster = ClusterMember.objects.get(run=run, document=centre).cluster
    document_services.document_delete(document=centre)
    late = add_pages(STORY_1[3])[STORY_1[3]]
    (placed,) = services.dedup_document_assign(document=late)
    assert placed.cluster == cluster
    assert placed.relation in ("duplicate", "containment")


def test_a_run_cut_by_a_server_restart_runs_again_and_finishes(
    collection, owner, add_pages, monkeypatch
):
    import psycopg
    from django.db import connection

    from dedup.tasks import dedup_run_task

    pages = add_pages(*STORY_0)
    run = services.dedup_run_start(collection=collection, method="periods")
    real = services._execute
    statuses: list[str] = []

    def flaky(run: DedupRun) -> None:
        statuses.append(DedupRun.objects.get(id=run.id).status)
        if len(statuses) == 1:
            DedupRun.objects.filter(id=run.id).update(status=DedupRun.Status.RUNNING)
            with connection.wrap_database_errors:  # as Django raises it
                raise psycopg.errors.AdminShutdown("terminating connection")
        real(run)

    monkeypatch.setattr(services, "_execute", flaky)

    dedup_run_task.apply(args=(run.id,))

    run.refresh_from_db()
    assert statuses == ["queued", "queued"]  # back to queued while it waited
    assert (run.status, run.error) == ("done", "")
    assert len({cluster_of(run)[i] for i in ids(pages, STORY_0)}) == 1
