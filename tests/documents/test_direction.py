"""Who copied whom: the earlier submission is the original. Its similarity does not count
what later documents took from it (they are listed as "Copied by"); the pairs say the
direction; submission times come from the upload, a ZIP member or the caller."""

from __future__ import annotations

import datetime
import io
import zipfile

import pytest
from django.utils import timezone

from documents import selectors, services
from documents.models import Document
from tests.documents.factories import WATER, WATER_COPIED, processed

pytestmark = pytest.mark.django_db

DAY = datetime.timedelta(days=1)


def submitted(document: Document, when: datetime.datetime) -> Document:
    services.document_submitted_set(document=document, submitted_at=when)
    document.refresh_from_db()
    return document


@pytest.fixture
def pair(assignment):
    """The original handed in a day before its copy (both processed, in upload order)."""
    copy = processed(assignment, "copy.txt", WATER_COPIED.encode())
    original = processed(assignment, "original.txt", WATER.encode())
    now = timezone.now()
    original = submitted(original, now - 2 * DAY)
    copy = submitted(copy, now - DAY)
    return original, copy


def test_the_original_does_not_count_what_its_copier_took(pair):
    original, copy = pair
    assert original.similarity == 0.0
    assert copy.similarity > 0.7
    report = selectors.report_get(document=original)
    assert report.sources == () and report.similarity == 0.0
    [copier] = report.copied_by
    assert (copier.document, copier.direction) == (copy.id, "to_source")
    assert copier.similarity > 0.7  # what of the original's text the copy holds
    [source] = selectors.report_get(document=copy).sources
    assert (source.document, source.direction) == (original.id, "from_source")


def test_the_copied_by_lists_only_later_documents(pair):
    original, copy = pair
    assert [m.document_id for m in selectors.copied_by(document=original)] == [copy.id]
    assert selectors.copied_by(document=copy) == []


def test_the_same_time_counts_both_ways(assignment):
    first = processed(assignment, "a.txt", WATER.encode())
    second = processed(assignment, "b.txt", WATER_COPIED.encode())
    first.refresh_from_db()
    assert first.similarity > 0.7 and second.similarity > 0.7
    [pair] = selectors.collection_pairs(collection=assignment)
    assert pair.direction == "same_time"
    assert selectors.report_get(document=first).sources[0].direction == "same_time"


def test_the_pairs_say_who_copied_whom(api, pair):
    original, copy = pair
    [row] = selectors.collection_pairs(collection=original.collection)
    copier, source = (row.document, row.other)
    expected = {(copy.id, original.id): "a_from_b", (original.id, copy.id): "b_from_a"}
    assert row.direction == expected[copier, source]
    assert (row.report_document, row.report_source) == (copy.id, original.id)
    [body] = api.get(f"/api/collections/{original.collection_id}/pairs/").json()
    assert body["direction"] == row.direction


def test_an_archive_document_is_always_the_original(assignment, archive):
    published = processed(archive, "published.txt", WATER.encode())
    published = submitted(published, timezone.now() + DAY)  # even "after" the essay
    essay = processed(assignment, "essay.txt", WATER_COPIED.encode())
    assert essay.similarity > 0.7
    [row] = selectors.collection_pairs(collection=assignment)
    assert (row.document, row.other, row.direction) == (essay.id, published.id, "a_from_b")


def test_changing_a_submission_time_recomputes_the_similarities(api, pair):
    original, copy = pair
    answer = api.patch(
        f"/api/documents/{original.id}/",
        {"submitted_at": (copy.submitted_at + DAY).isoformat()},
        format="json",
    )
    assert answer.status_code == 200
    assert answer.json()["submitted_at"].startswith(str((copy.submitted_at + DAY).date()))
    original.refresh_from_db()
    copy.refresh_from_db()
    assert original.similarity > 0.7  # now the later one: it copied
    assert copy.similarity == 0.0


def test_a_submission_time_needs_a_time_zone(api, pair):
    original, _ = pair
    answer = api.patch(
        f"/api/documents/{original.id}/", {"submitted_at": "2026-11-01T09:00:00"}, format="json"
    )
    # DRF reads a naive time in the server's zone (USE_TZ): accepted, stored aware.
    assert answer.status_code == 200
    with pytest.raises(services.DocumentError):
        services.document_submitted_set(
            document=original, submitted_at=datetime.datetime(2026, 11, 1, 9)
        )


def test_the_upload_takes_a_submission_time(api, assignment):
    answer = api.post(
        f"/api/collections/{assignment.id}/documents/",
        {"file": _file("essay.txt", WATER), "submitted_at": "2026-10-01T08:30:00+02:00"},
        format="multipart",
    )
    assert answer.status_code == 201
    document = Document.objects.get(id=answer.json()["id"])
    assert document.submitted_at == datetime.datetime(2026, 10, 1, 6, 30, tzinfo=datetime.UTC)


def test_a_zip_member_is_submitted_at_its_own_time(api, assignment):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as package:
        package.writestr(zipfile.ZipInfo("class/anna.txt", (2026, 9, 3, 14, 0, 0)), WATER)
        package.writestr(zipfile.ZipInfo("class/ben.txt", (2026, 9, 5, 10, 30, 0)), WATER_COPIED)
    answer = api.post(
        f"/api/collections/{assignment.id}/documents/",
        {"file": _file("class.zip", data.getvalue())},
        format="multipart",
    )
    assert answer.status_code == 201
    times = {
        d.filename: timezone.localtime(d.submitted_at).replace(tzinfo=None)
        for d in Document.objects.filter(collection=assignment)
    }
    assert times == {
        "anna.txt": datetime.datetime(2026, 9, 3, 14, 0),
        "ben.txt": datetime.datetime(2026, 9, 5, 10, 30),
    }


def _file(name: str, content: str | bytes) -> io.BytesIO:
    handle = io.BytesIO(content.encode() if isinstance(content, str) else content)
    handle.name = name
    return handle


def test_the_pages_show_and_change_the_submission_time(client, owner, pair):
    original, copy = pair
    client.force_login(owner)
    pairs = client.get(f"/collections/{original.collection_id}/pairs/").content.decode()
    assert 'copy.txt <span class="muted">copied from</span> original.txt' in pairs
    csv_text = client.get(f"/collections/{original.collection_id}/pairs/?format=csv").content
    assert "copy.txt copied from original.txt" in csv_text.decode("utf-8-sig")
    report = client.get(f"/documents/{original.id}/report/").content.decode()
    assert 'id="copied-by"' in report and "copy.txt" in report
    answer = client.post(
        f"/documents/{original.id}/submitted/",
        {"submitted_at": (timezone.localtime(copy.submitted_at) + DAY).strftime("%Y-%m-%dT%H:%M")},
    )
    assert answer.status_code == 302
    original.refresh_from_db()
    assert original.submitted_at > copy.submitted_at and original.similarity > 0.7


def test_the_upload_form_takes_a_submission_time(client, owner, assignment):
    client.force_login(owner)
    answer = client.post(
        f"/collections/{assignment.id}/upload/",
        {"files": _file("essay.txt", WATER), "submitted_at": "2026-10-01T08:30"},
    )
    assert answer.status_code == 302
    document = Document.objects.get(collection=assignment)
    assert timezone.localtime(document.submitted_at).replace(tzinfo=None) == datetime.datetime(
        2026, 10, 1, 8, 30
    )
