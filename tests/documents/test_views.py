"""Server-rendered pages: login, collections, upload, document and report pages."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from documents import services
from documents.models import Collection, Document
from tests.documents.factories import processed

pytestmark = pytest.mark.django_db


@pytest.fixture
def collection(owner):
    return services.collection_create(owner=owner, name="Essays")


def test_pages_require_login(client, collection):
    response = client.get(f"/collections/{collection.id}/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_login_page_renders(client):
    assert b"Log in" in client.get("/accounts/login/").content


def test_it_creates_a_collection(browser, owner):
    response = browser.post("/collections/", {"name": "Refs", "kind": "archive"})
    created = Collection.objects.get(owner=owner, name="Refs")
    assert created.kind == "archive"
    assert response["Location"] == f"/collections/{created.id}/"


def test_it_uploads_several_files_at_once(browser, collection):
    files = [SimpleUploadedFile(f"{n}.txt", "一句话。".encode()) for n in ("a", "b")]
    browser.post(f"/collections/{collection.id}/upload/", {"files": files})
    assert sorted(collection.documents.values_list("filename", flat=True)) == ["a.txt", "b.txt"]
    page = browser.get(f"/collections/{collection.id}/").content.decode()
    assert "a.txt" in page and "b.txt" in page and "Queued" in page


def test_an_empty_upload_shows_why_it_was_refused(browser, collection):
    files = [SimpleUploadedFile("empty.txt", b"")]
    response = browser.post(f"/collections/{collection.id}/upload/", {"files": files}, follow=True)
    assert "empty" in response.content.decode()
    assert not Document.objects.exists()


def test_it_saves_the_archive_selection(browser, owner, collection):
    archive = services.collection_create(owner=owner, name="Refs", kind="archive")
    browser.post(f"/collections/{collection.id}/archives/", {"archives": [archive.id]})
    assert list(collection.archives.all()) == [archive]


def test_strangers_get_404(client, stranger, collection):
    document = processed(collection, "zh_source.txt")
    client.force_login(stranger)
    for url in (
        f"/collections/{collection.id}/",
        f"/documents/{document.id}/",
        f"/documents/{document.id}/report/",
    ):
        assert client.get(url).status_code == 404


def test_the_failure_reason_is_shown(browser, collection):
    document = processed(collection, "blank.txt", b" \n")
    page = browser.get(f"/documents/{document.id}/").content.decode()
    assert "blank.txt: the file is empty" in page


def test_the_report_highlights_both_sides(browser, collection):
    source = processed(collection, "zh_source.txt")
    suspicious = processed(collection, "zh_suspicious.txt")
    page = browser.get(f"/documents/{suspicious.id}/report/?source={source.id}").content.decode()
    assert 'id="q-0"' in page and 'id="s-0"' in page
    assert "zh_source.txt" in page


def test_the_report_escapes_document_text(browser, collection):
    document = processed(collection, "evil.txt", "<script>alert(1)</script>。".encode())
    page = browser.get(f"/documents/{document.id}/report/").content.decode()
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_check_again_requeues_the_document(browser, collection):
    document = processed(collection, "zh_source.txt")
    response = browser.post(f"/documents/{document.id}/recheck/")
    assert response.status_code == 302
    document.refresh_from_db()
    assert (document.status, document.progress) == ("queued", 0)


def test_delete_removes_the_document(browser, collection):
    document = processed(collection, "zh_source.txt")
    response = browser.post(f"/documents/{document.id}/delete/")
    assert response["Location"] == f"/collections/{collection.id}/"
    assert not Document.objects.filter(id=document.id).exists()


def test_strangers_cannot_delete(client, stranger, collection):
    document = processed(collection, "zh_source.txt")
    client.force_login(stranger)
    assert client.post(f"/documents/{document.id}/delete/").status_code == 404
    assert Document.objects.filter(id=document.id).exists()
