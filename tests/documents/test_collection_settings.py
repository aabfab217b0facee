"""Renaming a collection, changing its kind, and deleting it with its documents."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection

from documents import policy, selectors, services
from documents import tasks as document_tasks
from documents.models import Collection, Document, Match
from tests.documents.factories import WATER, WATER_COPIED, CapturedTasks, processed

pytestmark = pytest.mark.django_db


@pytest.fixture
def deletions(monkeypatch, django_capture_on_commit_callbacks):
    return CapturedTasks(
        monkeypatch,
        django_capture_on_commit_callbacks,
        document_tasks.collection_delete_task,
        lambda collection_id: services.collection_purge(collection_id=collection_id),
    )


def postings_of(document_ids):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM documents_posting WHERE ref >> 32 = ANY(%s)", [list(document_ids)]
        )
        return cursor.fetchone()[0]


def test_rename_and_validation(assignment):
    services.collection_update(collection=assignment, name="  Essay one ", kind="assignment")
    assignment.refresh_from_db()
    assert assignment.name == "Essay one"
    with pytest.raises(services.CollectionError, match="name"):
        services.collection_update(collection=assignment, name=" ", kind="assignment")
    with pytest.raises(services.CollectionError, match="kind"):
        services.collection_update(collection=assignment, name="x", kind="folder")


def test_an_archive_turned_assignment_leaves_the_archive_selections(owner, assignment, archive):
    services.collection_archives_set(collection=assignment, archive_ids=[archive.id])
    services.collection_update(collection=archive, name=archive.name, kind="assignment")
    assert list(assignment.archives.all()) == []
    services.collection_archives_set(collection=assignment, archive_ids=[archive.id])
    assert list(assignment.archives.all()) == []  # no longer an archive: cannot be chosen
    services.collection_update(collection=archive, name=archive.name, kind="archive")
    services.collection_archives_set(collection=assignment, archive_ids=[archive.id])
    assert list(assignment.archives.all()) == [archive]


def test_losing_the_chosen_archives_checks_against_none_not_all(
    client, api, owner, assignment, archive
):
    """A class checked against one archive must not be widened to every archive (other
    classes' work) when that archive is turned into an assignment or deleted."""
    other = services.collection_create(owner=owner, name="Another class", kind="archive")
    assert set(selectors.collection_scope(collection=assignment)) == {
        assignment.id,
        archive.id,
        other.id,
    }  # fmt: skip  (none chosen: all)
    services.collection_archives_set(collection=assignment, archive_ids=[archive.id])
    assert selectors.collection_scope(collection=assignment) == [assignment.id, archive.id]
    services.collection_update(collection=archive, name=archive.name, kind="assignment")
    assignment.refresh_from_db()
    assert selectors.collection_scope(collection=assignment) == [assignment.id]
    assert api.get(f"/api/collections/{assignment.id}/archives/").json() == {
        "archives": [], "all": False,
    }  # fmt: skip
    client.force_login(owner)
    page = client.get(f"/collections/{assignment.id}/").content.decode()
    assert 'id="archives-gone"' in page
    answer = api.put(f"/api/collections/{assignment.id}/archives/", {"archives": []}, format="json")
    assert answer.json() == {"archives": [], "all": True}  # saved with none: all again
    assignment.refresh_from_db()
    assert set(selectors.collection_scope(collection=assignment)) == {assignment.id, other.id}


def test_an_assignment_turned_archive_is_searched_by_the_next_documents(owner, assignment):
    last_year = services.collection_create(owner=owner, name="Essay 1 (2025)")
    source = processed(last_year, "water.txt", WATER.encode())
    before = processed(assignment, "copier.txt", WATER_COPIED.encode())
    assert selectors.report_get(document=before).sources == ()
    services.collection_update(collection=last_year, name=last_year.name, kind="archive")
    after = processed(assignment, "copier-2.txt", WATER_COPIED.encode())
    found = {s.document for s in selectors.report_get(document=after).sources}
    assert found == {source.id, before.id}  # last year's essay, and this year's copy


def test_deleting_hides_at_once_and_the_task_removes_everything(
    owner, assignment, archive, deletions
):
    kept = services.collection_create(owner=owner, name="Essay 2")
    source = processed(archive, "water.txt", WATER.encode())
    copier = processed(kept, "copier.txt", WATER_COPIED.encode())
    assert copier.similarity > 0.5
    services.collection_archives_set(collection=assignment, archive_ids=[archive.id])
    files = [source.original.name]
    storage = source.original.storage
    assert all(storage.exists(name) for name in files)

    with deletions.capture(execute=True):
        services.collection_delete(collection=archive)
    assert deletions.queue == [archive.id]
    assert archive.id not in [
        c.id for c in selectors.collection_list(among=policy.readable_collections(user=owner))
    ]
    assert archive.id not in [c.id for c in selectors.archive_choices(collection=assignment)]
    assert list(assignment.archives.all()) == []
    assert postings_of([source.id]) > 0  # still there until the task runs

    deletions.run()
    assert not Collection.objects.filter(id=archive.id).exists()
    assert not Document.objects.filter(id=source.id).exists()
    assert postings_of([source.id]) == 0
    assert not any(storage.exists(name) for name in files)
    assert not Match.objects.filter(source_id=source.id).exists()
    copier.refresh_from_db()
    assert copier.similarity == 0.0  # its only source went
    services.collection_purge(collection_id=archive.id)  # again: nothing left, no error


def test_documents_of_a_collection_being_deleted_are_not_processed(assignment, deletions):
    document = processed(assignment, "water.txt", WATER.encode())
    Document.objects.filter(id=document.id).update(status=Document.Status.QUEUED)
    with deletions.capture(execute=True):
        services.collection_delete(collection=assignment)
    services.document_process(document_id=document.id)
    assert Document.objects.get(id=document.id).status == Document.Status.QUEUED


def test_uploads_into_a_collection_being_deleted_are_refused(assignment, deletions):
    import zipfile

    with deletions.capture(execute=True):
        services.collection_delete(collection=assignment)
    with pytest.raises(services.UploadError, match="being deleted"):
        services.document_upload(collection=assignment, filename="late.txt", data=WATER.encode())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("late.txt", WATER)
    with pytest.raises(services.UploadError, match="being deleted"):
        services.document_upload_batch(
            collection=assignment, filename="late.zip", data=buffer.getvalue()
        )
    assert not Document.objects.filter(collection=assignment).exists()
    deletions.run()
    assert not Collection.objects.filter(id=assignment.id).exists()


def test_the_page_renames_and_deletes(client, owner, assignment, deletions):
    processed(assignment, "water.txt", WATER.encode())
    client.force_login(owner)
    page = client.get(f"/collections/{assignment.id}/").content.decode()
    assert 'id="collection-settings"' in page and 'id="delete-collection"' in page
    answer = client.post(
        f"/collections/{assignment.id}/settings/", {"name": "Essays", "kind": "archive"},
        follow=True,
    )  # fmt: skip
    assert "Saved." in answer.content.decode()
    assignment.refresh_from_db()
    assert (assignment.name, assignment.kind) == ("Essays", "archive")

    refused = client.post(f"/collections/{assignment.id}/delete/", follow=True)
    assert "Tick the box" in refused.content.decode()
    assert deletions.queue == []
    with deletions.capture(execute=True):
        gone = client.post(f"/collections/{assignment.id}/delete/", {"confirm": "on"}, follow=True)
    assert "is being deleted" in gone.content.decode()
    assert client.get(f"/collections/{assignment.id}/").status_code == 404
    deletions.run()
    assert not Collection.objects.filter(id=assignment.id).exists()


def test_strangers_cannot_rename_or_delete(client, stranger, assignment):
    client.force_login(stranger)
    url = f"/collections/{assignment.id}"
    assert client.post(f"{url}/settings/", {"name": "x", "kind": "archive"}).status_code == 404
    assert client.post(f"{url}/delete/", {"confirm": "on"}).status_code == 404
    assignment.refresh_from_db()
    assert (assignment.name, assignment.deleting) == ("Essay 1", False)


def test_the_api_renames_and_deletes(api, assignment, deletions):
    assert api.get(f"/api/collections/{assignment.id}/").json()["name"] == "Essay 1"
    answer = api.patch(f"/api/collections/{assignment.id}/", {"kind": "archive"}, format="json")
    assert answer.json() == {
        "id": assignment.id, "name": "Essay 1", "kind": "archive",
        "exclude_quotes": True, "exclude_bibliography": True, "min_match_words": 8,
        "workspace": assignment.workspace_id,
    }  # fmt: skip
    bad = api.patch(f"/api/collections/{assignment.id}/", {"name": "  "}, format="json")
    assert bad.status_code == 400
    with deletions.capture(execute=True):
        assert api.delete(f"/api/collections/{assignment.id}/").status_code == 202
    assert api.get(f"/api/collections/{assignment.id}/").status_code == 404
    assert deletions.queue == [assignment.id]


def test_an_interrupted_deletion_is_resumed_at_start_up(assignment, deletions, monkeypatch):
    from core import broker

    monkeypatch.setattr(broker, "waiting_document_ids", lambda: set())
    Collection.objects.filter(id=assignment.id).update(deleting=True)  # its task was lost
    out = io.StringIO()
    call_command("reanalyze", "--unfinished", stdout=out)
    assert "Queued the deletion of 1 collection(s) again." in out.getvalue()
    assert deletions.queue == [assignment.id]


def test_only_an_empty_choice_means_every_archive(owner, assignment, archive):
    old_class = services.collection_create(owner=owner, name="Old class")  # not an archive
    services.collection_archives_set(collection=assignment, archive_ids=[old_class.id])
    assignment.refresh_from_db()
    assert selectors.collection_scope(collection=assignment) == [assignment.id]  # none, not all
    services.collection_archives_set(collection=assignment, archive_ids=[])
    assert set(selectors.collection_scope(collection=assignment)) == {assignment.id, archive.id}


def test_an_assignment_back_from_being_an_archive_checks_against_all_again(
    owner, assignment, archive
):
    services.collection_archives_set(collection=assignment, archive_ids=[archive.id])
    services.collection_update(collection=assignment, name=assignment.name, kind="archive")
    services.collection_update(collection=assignment, name=assignment.name, kind="assignment")
    assignment.refresh_from_db()
    assert assignment.all_archives
    assert set(selectors.collection_scope(collection=assignment)) == {assignment.id, archive.id}
