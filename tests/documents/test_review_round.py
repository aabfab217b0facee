"""What a hands-on review of the product found, kept fixed: private originals, no report
for unchecked text, reports naming folders, re-uploads flagged, archives seeing who copied
them, and a whole collection checked again in one step."""

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from detection import Postings, pack_refs
from documents import policy, selectors, services
from documents import tasks as document_tasks
from documents.index.store import within_document_frequency
from documents.models import Collection, Document
from tests.documents.factories import WATER, WATER_COPIED, intercept_task, processed, upload

pytestmark = pytest.mark.django_db


def test_originals_are_not_served_from_media_but_downloaded_by_their_owner(
    client, browser, stranger, assignment
):
    document = upload(assignment, "essay.txt", WATER.encode())
    assert client.get("/media/" + document.original.name).status_code == 404
    assert browser.get("/media/" + document.original.name).status_code == 404

    response = browser.get(f"/documents/{document.id}/original/")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    assert b"".join(response.streaming_content) == WATER.encode()

    client.force_login(stranger)
    assert client.get(f"/documents/{document.id}/original/").status_code == 404


def test_an_unchecked_document_has_no_report(browser, assignment):
    document = upload(assignment, "essay.txt", WATER.encode())  # queued, never processed
    response = browser.get(f"/documents/{document.id}/report/", follow=True)
    assert response.redirect_chain[-1][0] == f"/documents/{document.id}/"
    assert b"has no report: it is queued" in response.content
    assert b"No copied passages" not in response.content


def test_collections_are_listed_newest_first(browser, owner):
    made = [services.collection_create(owner=owner, name=f"C{i}") for i in range(4)]
    listed = list(selectors.collection_list(among=policy.readable_collections(user=owner)))
    assert [c.id for c in listed] == [c.id for c in reversed(made)]


def test_reports_name_sources_with_their_folder(assignment):
    source = services.document_upload(
        collection=assignment, filename="essay.txt", data=WATER.encode(), folder="class1/ann"
    )
    services.document_process(document_id=source.id)
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    titles = [s.title for s in selectors.report_get(document=copier).sources]
    assert titles == ["class1/ann/essay.txt"]


def test_a_reupload_of_the_same_file_is_flagged_on_both_documents(browser, assignment, owner):
    first = processed(assignment, "essay.txt", WATER.encode())
    other = services.collection_create(owner=owner, name="Essay 2")
    again = processed(other, "essay-again.txt", WATER.encode())
    for document, twin in ((first, b"essay-again.txt"), (again, b"essay.txt")):
        page = browser.get(f"/documents/{document.id}/")
        assert b'id="identical"' in page.content and twin in page.content
    services.document_delete(document=first)
    assert b'id="identical"' not in browser.get(f"/documents/{again.id}/").content


def test_an_archive_sees_who_copied_from_it(browser, owner, assignment, archive):
    source = processed(archive, "water.txt", WATER.encode())
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    assert copier.similarity > 0.5

    pairs = selectors.collection_pairs(collection=archive, visible=Collection.objects.all())
    assert [(p.document, p.other) for p in pairs] == [(source.id, copier.id)]  # archive's first
    assert (pairs[0].share, pairs[0].other_share) == (None, copier.similarity)
    assert [
        (m.document_id, m.similarity)
        for m in selectors.copied_by(document=source, visible=Collection.objects.all())
    ] == [
        (copier.id, copier.similarity)  # its only source: the share from here is its total
    ]
    assert [p.other_collection for p in pairs] == [assignment.name]  # the copier's side
    page = browser.get(f"/documents/{source.id}/")
    assert b'id="copied-by"' in page.content and b"copier.txt" in page.content


def test_sources_in_a_collection_being_deleted_leave_reports_at_once(
    owner, assignment, archive, monkeypatch
):
    intercept_task(monkeypatch, document_tasks.collection_delete_task.name, lambda *_: None)
    source = processed(archive, "water.txt", WATER.encode())
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    assert selectors.report_get(document=copier).sources
    services.collection_delete(collection=archive)  # marked; the task has not run
    assert selectors.report_get(document=copier).sources == ()
    assert selectors.collection_pairs(collection=assignment, visible=Collection.objects.all()) == []
    assert selectors.source_text_get(document=copier, source_id=source.id) is None


def test_check_every_document_again_queues_the_whole_collection(browser, assignment):
    documents = [processed(assignment, f"e{i}.txt", WATER.encode()) for i in range(3)]
    assert all(d.status == Document.Status.DONE for d in documents)  # none is stale
    response = browser.post(f"/collections/{assignment.id}/reanalyze/", {"all": "1"}, follow=True)
    assert b"3 document(s) queued" in response.content
    statuses = set(Document.objects.filter(collection=assignment).values_list("status", flat=True))
    assert statuses == {Document.Status.QUEUED}


def test_a_failed_row_shows_why(browser, assignment):
    bad = SimpleUploadedFile("broken.pdf", b"%PDF-1.4 not really", "application/pdf")
    browser.post(f"/collections/{assignment.id}/upload/", {"files": [bad]})
    document = Document.objects.get(collection=assignment)
    services.document_process(document_id=document.id)
    page = browser.get(f"/collections/{assignment.id}/")
    assert b'class="error failure"' in page.content


def test_a_zip_with_nothing_to_check_is_refused_with_the_reasons(assignment):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("tool.exe", b"MZ" + bytes(40))
    with pytest.raises(services.UploadError, match=r"no document that can be checked: tool\.exe"):
        services.document_upload_batch(
            collection=assignment, filename="tools.zip", data=buffer.getvalue()
        )
    assert not Document.objects.filter(collection=assignment).exists()


@pytest.mark.parametrize(
    ("share", "shown"), [(None, "–"), (0.0, "0.0%"), (0.0003, "<0.1%"), (0.4237, "42.4%")]
)
def test_a_tiny_share_does_not_read_as_nothing(share, shown):
    from documents.templatetags.report_format import percent

    assert percent(share) == shown


def test_other_users_uploads_do_not_change_what_a_check_finds(owner, stranger, assignment):
    """Text common in ANOTHER user's documents (more of them than the detector's df floor of
    50) stays evidence in this user's check: too-common is decided within the check's scope."""
    source = processed(assignment, "water.txt", WATER.encode())
    before = processed(assignment, "copier.txt", WATER_COPIED.encode())
    theirs = services.collection_create(owner=stranger, name="Quotes", kind="archive")

    def share_of_source() -> float:
        found = selectors.report_get(document=before).sources
        return next(s.similarity for s in found if s.document == source.id)

    assert share_of_source() > 0.5
    first = share_of_source()
    for number in range(60):
        processed(theirs, f"quote-{number}.txt", WATER.encode())
    services.document_process(document_id=before.id)  # checked again
    assert share_of_source() == pytest.approx(first)


def test_a_scoped_lookup_drops_features_common_within_what_it_found():
    """Inside the scope the detector's rule holds: a feature in more than `max_df` of the
    scope's documents (e.g. an assignment's question in every essay) is not evidence."""
    documents = np.arange(1, 62, dtype=np.int64)
    common = (np.full(61, 7, np.int64), pack_refs(documents, documents * 0, documents * 0 + 5))
    same_document = pack_refs(np.array([3, 3]), np.array([0, 1]), np.array([5, 5]))
    twice_in_one = (np.array([9, 9], np.int64), same_document)
    found = Postings(*(np.concatenate(pair) for pair in zip(common, twice_in_one, strict=True)))
    assert set(within_document_frequency(found, 50).features.tolist()) == {9}
    assert len(within_document_frequency(found, 61)) == 63  # 61 documents: not above 61


def test_a_long_report_shows_the_passages_in_context_and_the_whole_text_on_request(
    browser, assignment, monkeypatch
):
    from documents import views

    monkeypatch.setattr(views, "LONG_TEXT", 1000)  # the rule, not the size, is under test
    filler = " ".join(f"Line {n} of a long diary with nothing copied in it." for n in range(60))
    source = processed(assignment, "water.txt", WATER.encode())
    long_copy = processed(assignment, "long.txt", (filler + "\n\n" + WATER_COPIED).encode())
    assert len(long_copy.text) > 1000

    page = browser.get(f"/documents/{long_copy.id}/report/?source={source.id}")
    assert b'id="shortened"' in page.content and b'class="gap"' in page.content
    assert b"Line 0 of a long diary" in page.content  # the opening stays
    assert b"Line 30 of a long diary" not in page.content  # left out, far from the passage
    assert b'id="q-0"' in page.content and b'id="s-0"' in page.content
    whole = browser.get(f"/documents/{long_copy.id}/report/?source={source.id}&full=1")
    assert b'class="gap"' not in whole.content and b"Line 30 of a long diary" in whole.content


def test_wording_in_more_than_50_documents_of_the_scope_is_not_counted_and_the_user_is_told(
    assignment,
):
    for number in range(51):
        processed(assignment, f"class-{number}.txt", f"Student {number}.\n\n{WATER}".encode())
    last = processed(assignment, "late.txt", WATER_COPIED.encode())
    assert last.similarity == 0.0  # every one of its sentences is in 51 other documents
    [warning] = [w for w in last.warnings if "treated as a stock phrase" in w]
    # Who holds it is named: many students copying one source look like this too.
    assert "51 other documents hold it, most of all: class-" in warning


def test_the_admin_shows_the_original_without_a_media_link(client, django_user_model, assignment):
    document = upload(assignment, "essay.txt", WATER.encode())
    admin = django_user_model.objects.create_superuser("root", "root@example.org", "pw-root-1")
    client.force_login(admin)
    page = client.get(f"/admin/documents/document/{document.id}/change/")
    assert page.status_code == 200
    assert document.original.name.encode() in page.content and b"/media/" not in page.content


def test_the_api_rechecks_marks_and_deletes_a_document(api, stranger, assignment):
    document = processed(assignment, "essay.txt", WATER.encode())
    url = f"/api/documents/{document.id}/"

    rechecked = api.post(url + "recheck/")
    assert rechecked.status_code == 202 and rechecked.json()["status"] == "queued"
    marked = api.patch(url, {"template": True}, format="json")
    assert marked.status_code == 200 and marked.json()["template"] is True
    assert api.patch(url, {"template": "maybe"}, format="json").status_code == 400

    api.force_authenticate(stranger)
    assert api.delete(url).status_code == 404
    api.force_authenticate(assignment.owner)
    assert api.delete(url).status_code == 204
    assert not Document.objects.filter(id=document.id).exists()


def test_a_queued_document_can_be_deleted_from_its_page(browser, assignment):
    document = upload(assignment, "essay.txt", WATER.encode())  # queued, never processed
    page = browser.get(f"/documents/{document.id}/").content
    assert f'action="/documents/{document.id}/delete/"'.encode() in page
    assert b"Check again" not in page


def test_skipped_zip_members_say_why_once(assignment):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("essay.txt", WATER)
        archive.writestr("empty.txt", "")
        archive.writestr("tool.exe", b"MZ" + bytes(40))
    batch = services.document_upload_batch(
        collection=assignment, filename="class.zip", data=buffer.getvalue()
    )
    assert dict(batch.skipped) == {"empty.txt": "empty", "tool.exe": "not a document (.exe)"}
