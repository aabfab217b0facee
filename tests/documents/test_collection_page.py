"""A collection page of any size: pages of documents, sorting, status counts, and one
progress request for all unfinished rows (the page polled once per row before)."""

from __future__ import annotations

import re

import pytest

from documents import services, views
from documents.models import Document
from tests.documents.factories import upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def five(assignment):
    """Five documents: three done with similarities 0.1, 0.9 and 0.5, one failed, one queued."""
    documents = [
        upload(assignment, f"essay-{n}.txt", f"Essay number {n}.".encode()) for n in range(5)
    ]
    for document, similarity in zip(documents[:3], (0.1, 0.9, 0.5), strict=True):
        Document.objects.filter(id=document.id).update(
            status=Document.Status.DONE, progress=100, similarity=similarity
        )
    Document.objects.filter(id=documents[3].id).update(status=Document.Status.FAILED)
    return documents


def rows(page: str) -> list[int]:
    return [int(i) for i in re.findall(r'<tr data-document="(\d+)"', page)]


def test_documents_come_in_pages_with_counts(client, owner, assignment, five, monkeypatch):
    monkeypatch.setattr(views, "DOCUMENTS_PER_PAGE", 2)
    client.force_login(owner)
    first = client.get(f"/collections/{assignment.id}/").content.decode()
    newest_first = [d.id for d in reversed(five)]
    assert rows(first) == newest_first[:2]
    assert "5 documents:" in first and "3 done, 1 queued" in first and "1 failed" in first
    assert "page 1 of 3" in first and 'rel="next"' in first and 'rel="prev"' not in first
    last = client.get(f"/collections/{assignment.id}/", {"page": 3}).content.decode()
    assert rows(last) == newest_first[4:]
    beyond = client.get(f"/collections/{assignment.id}/", {"page": "99"}).content.decode()
    assert rows(beyond) == rows(last)  # out of range: the last page
    garbage = client.get(f"/collections/{assignment.id}/", {"page": "x", "sort": "x"})
    assert rows(garbage.content.decode()) == newest_first[:2]


def test_documents_sort_by_similarity_and_name(client, owner, assignment, five):
    client.force_login(owner)
    page = client.get(f"/collections/{assignment.id}/", {"sort": "similarity"}).content.decode()
    by_similarity = rows(page)
    assert by_similarity[:3] == [five[1].id, five[2].id, five[0].id]  # 0.9, 0.5, 0.1
    assert set(by_similarity[3:]) == {five[3].id, five[4].id}  # not measured: last
    page = client.get(f"/collections/{assignment.id}/", {"sort": "name"}).content.decode()
    assert rows(page) == [d.id for d in five]


def test_names_sort_by_their_numbers(client, owner, assignment):
    made = {n: upload(assignment, f"student{n}.txt", b"An essay.").id for n in (10, 2, 1499, 1)}
    client.force_login(owner)
    page = client.get(f"/collections/{assignment.id}/", {"sort": "name"}).content.decode()
    assert rows(page) == [made[n] for n in (1, 2, 10, 1499)]


def test_one_request_reports_the_progress_of_many_documents(
    api, assignment, five, django_assert_num_queries
):
    wanted = [five[4].id, five[0].id, 10**9]
    with django_assert_num_queries(3):  # the collection, the rows, its counts: not one a row
        answer = api.get(
            f"/api/collections/{assignment.id}/progress/", {"ids": ",".join(map(str, wanted))}
        )
    assert answer.status_code == 200
    body = answer.json()
    assert body["counts"] == {"queued": 1, "processing": 0, "done": 3, "failed": 1}
    assert body["documents"] == [
        {"id": five[0].id, "status": "done", "status_label": "Done", "progress": 100,
         "error": "", "similarity": 0.1, "similarity_label": "10.0%"},
        {"id": five[4].id, "status": "queued", "status_label": "Queued", "progress": 0,
         "error": "", "similarity": None, "similarity_label": "–"},
    ]  # fmt: skip
    assert api.get(f"/api/collections/{assignment.id}/progress/").json()["documents"] == []
    for wrong in ("1,a", ",".join(["1"] * 501)):
        answer = api.get(f"/api/collections/{assignment.id}/progress/", {"ids": wrong})
        assert answer.status_code == 400


def test_the_counts_are_never_older_than_the_rows_they_come_with(
    api, assignment, five, monkeypatch
):
    """A document finishing while the progress is read: the rows are read first, so a page
    whose rows are all finished (it says "Results are ready") never shows a summary line
    still counting one unfinished; the other way round, its rows catch up at the next poll."""
    from documents import selectors

    counts = selectors.document_status_counts

    def finishing_meanwhile(*, collection):
        Document.objects.filter(id=five[4].id).update(status=Document.Status.DONE)
        return counts(collection=collection)

    monkeypatch.setattr(selectors, "document_status_counts", finishing_meanwhile)
    body = api.get(f"/api/collections/{assignment.id}/progress/", {"ids": str(five[4].id)}).json()
    assert [d["status"] for d in body["documents"]] == ["queued"]
    assert body["counts"] == {"queued": 0, "processing": 0, "done": 4, "failed": 1}


def test_progress_of_another_collection_is_not_reported(api, owner, assignment, five):
    other = services.collection_create(owner=owner, name="Essay 2")
    answer = api.get(f"/api/collections/{other.id}/progress/", {"ids": str(five[0].id)})
    assert answer.json()["documents"] == []


def test_a_failed_document_reports_why(api, assignment, five):
    Document.objects.filter(id=five[3].id).update(error="Not a document (.exe).")
    answer = api.get(f"/api/collections/{assignment.id}/progress/", {"ids": str(five[3].id)})
    [failed] = answer.json()["documents"]
    assert (failed["status_label"], failed["error"]) == ("Failed", "Not a document (.exe).")


def test_the_page_polls_its_unfinished_rows_in_one_request(client, owner, assignment, five):
    client.force_login(owner)
    page = client.get(f"/collections/{assignment.id}/").content.decode()
    assert f'data-progress-url="/api/collections/{assignment.id}/progress/"' in page
    # What the script rewrites as rows finish: the summary line and the similarity cells.
    assert '<span id="status-counts">5 documents:' in page
    assert f'data-report-url="/documents/{five[4].id}/report/"' in page


def test_the_document_list_api_pages_on_request(api, assignment, five):
    everything = api.get(f"/api/collections/{assignment.id}/documents/").json()
    assert [d["id"] for d in everything] == [d.id for d in reversed(five)]
    page = api.get(f"/api/collections/{assignment.id}/documents/", {"limit": 2, "offset": 2})
    body = page.json()
    assert body["count"] == 5
    assert [d["id"] for d in body["results"]] == [five[2].id, five[1].id]
    assert "offset=4" in body["next"] and body["previous"]
    alone = api.get(f"/api/collections/{assignment.id}/documents/", {"offset": 3}).json()
    assert (alone["count"], [d["id"] for d in alone["results"]]) == (5, [five[1].id, five[0].id])


@pytest.mark.parametrize(
    ("query", "field"),
    [({"limit": "abc"}, "limit"), ({"limit": 0}, "limit"), ({"limit": -1}, "limit"),
     ({"limit": "²"}, "limit"),
     ({"limit": 2, "offset": "x"}, "offset")],
)  # fmt: skip
def test_a_bad_page_size_or_offset_is_a_400(api, assignment, five, query, field):
    response = api.get(f"/api/collections/{assignment.id}/documents/", query)
    assert response.status_code == 400
    assert field in response.json()
