"""The JSON API: auth, ownership, input errors and the report shape."""

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from documents import services
from documents.models import Document
from tests.documents.factories import processed, read_fixture, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def collection(owner):
    return services.collection_create(owner=owner, name="Essays")


def post_file(client, collection_id, name, data):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(
        f"/api/collections/{collection_id}/documents/",
        {"file": SimpleUploadedFile(name, data, content_type="text/plain")},
        format="multipart",
    )


def test_it_requires_authentication(anonymous_api, collection):
    assert anonymous_api.post("/api/collections/", {"name": "x"}).status_code == 401
    assert anonymous_api.get("/api/collections/").status_code == 401


def test_token_authentication_works(owner):
    token = Token.objects.create(user=owner)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.post("/api/collections/", {"name": "Essays"}, format="json")
    assert response.status_code == 201
    assert response.json()["name"] == "Essays"
    assert isinstance(response.json()["id"], int)


def test_create_collection_validates_name(api):
    response = api.post("/api/collections/", {}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()
    response = api.post("/api/collections/", {"name": "A", "kind": "bin"}, format="json")
    assert response.status_code == 400


def test_upload_returns_the_queued_document(api, collection):
    response = post_file(api, collection.id, "essay.txt", "第一句。".encode())
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "queued"
    assert Document.objects.get(id=body["id"]).collection == collection


def test_upload_without_a_file_is_a_400(api, collection):
    response = api.post(f"/api/collections/{collection.id}/documents/", {}, format="multipart")
    assert response.status_code == 400
    assert "file" in response.json()


def test_upload_of_an_empty_file_is_a_400(api, collection):
    response = post_file(api, collection.id, "empty.txt", b"")
    assert response.status_code == 400
    assert "empty" in response.json()["file"][0]


def test_upload_over_the_size_limit_is_a_400(api, collection, settings):
    settings.MAX_UPLOAD_BYTES = 100
    response = post_file(api, collection.id, "big.txt", b"a" * 101)
    assert response.status_code == 400
    assert "the limit is 100 bytes" in response.json()["file"][0]
    assert not Document.objects.exists()


def test_it_validates_ownership(collection, stranger):
    document = processed(collection, "zh_source.txt")
    client = APIClient()
    client.force_authenticate(stranger)
    assert post_file(client, collection.id, "a.txt", b"x").status_code == 404
    for suffix in ("", "report/", "text/"):
        assert client.get(f"/api/documents/{document.id}/{suffix}").status_code == 404
    assert client.get("/api/collections/").json() == []


def test_status_of_a_queued_document(api, collection):
    document = upload(collection, "zh_source.txt")
    response = api.get(f"/api/documents/{document.id}/")
    assert response.json() == {
        "id": document.id, "template": False, "status": "queued", "status_label": "Queued",
        "progress": 0, "error": "", "warnings": [],
        "submitted_at": document.submitted_at.isoformat().replace("+00:00", "Z"),
    }  # fmt: skip


def test_report_before_processing_is_a_409(api, collection):
    document = upload(collection, "zh_source.txt")
    response = api.get(f"/api/documents/{document.id}/report/")
    assert response.status_code == 409
    assert response.json()["status"] == "queued"


def test_report_lists_sources_with_offsets_into_the_texts(api, collection):
    source = processed(collection, "zh_source.txt")
    suspicious = processed(collection, "zh_suspicious.txt")
    report = api.get(f"/api/documents/{suspicious.id}/report/").json()
    assert 0 < report["similarity"] <= 1
    [entry] = report["sources"]
    assert (entry["document"], entry["title"]) == (source.id, "zh_source.txt")
    assert entry["collection"] == collection.name
    [passage] = entry["passages"]
    assert set(passage) == {
        "start",
        "end",
        "source_start",
        "source_end",
        "score",
        "kind",
        "excluded",
    }
    assert passage["kind"] == "verbatim"  # a copy of whole sentences
    text = api.get(f"/api/documents/{suspicious.id}/text/").content.decode()
    source_text = api.get(f"/api/documents/{source.id}/text/").content.decode()
    copied = text[passage["start"] : passage["end"]]
    assert copied == source_text[passage["source_start"] : passage["source_end"]]


def test_text_returns_the_extracted_text(api, collection):
    document = processed(collection, "zh_source.txt")
    response = api.get(f"/api/documents/{document.id}/text/")
    assert response["Content-Type"].startswith("text/plain")
    # extraction tidies plain text; for this file that only drops the final newline.
    assert response.content.decode() == read_fixture("zh_source.txt").rstrip("\n")


def test_failed_document_reports_its_error(api, collection):
    document = processed(collection, "blank.txt", b"  \n")
    body = api.get(f"/api/documents/{document.id}/").json()
    assert body["status"] == "failed"
    assert "empty" in body["error"]


def test_the_openapi_schema_describes_the_endpoints(api):
    response = api.get("/api/schema/?format=json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert "/api/collections/{collection_id}/documents/" in paths
    assert "/api/documents/{document_id}/report/" in paths


def test_a_zip_upload_returns_every_document_and_what_was_skipped(api, collection):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("week1/a.txt", "一句话。".encode())
        archive.writestr("week1/b.exe", b"MZ")
    response = post_file(api, collection.id, "batch.zip", buffer.getvalue())
    assert response.status_code == 201
    body = response.json()
    [created] = body["documents"]
    assert Document.objects.get(id=created["id"]).folder == "week1"
    assert [s["path"] for s in body["skipped"]] == ["week1/b.exe"]


def test_a_file_that_is_no_document_is_refused_at_upload(api, collection):
    """As a ZIP batch skips such members at once, not as a failed document later."""
    for name, data, reason in [
        ("tool.exe", b"MZ\x90\x00", "unsupported file type: .exe"),
        ("scan.pdf", b"not a pdf at all", "not a real .pdf file: its content is plain text"),
    ]:
        response = post_file(api, collection.id, name, data)
        assert response.status_code == 400
        assert response.json()["file"][0].startswith(f"{name}: ") and reason in response.text
    assert not Document.objects.exists()


def test_an_unreadable_file_fails_with_the_extraction_reason(api, collection):
    document = processed(collection, "scan.pdf", b"%PDF-1.4\n garbage without objects")
    body = api.get(f"/api/documents/{document.id}/").json()
    assert body["status"] == "failed"
    assert "scan.pdf" in body["error"] and "pdf" in body["error"].lower()


def test_it_lists_a_collections_documents_newest_first(api, collection):
    first = upload(collection, "zh_source.txt")
    second = processed(collection, "zh_suspicious.txt")
    listed = api.get(f"/api/collections/{collection.id}/documents/").json()
    assert [d["id"] for d in listed] == [second.id, first.id]
    assert listed[0]["status"] == "done" and listed[0]["similarity"] is not None
    assert listed[1]["similarity"] is None


def test_it_sets_the_archives_to_check_against(api, owner, stranger, collection):
    mine = services.collection_create(owner=owner, name="Refs", kind="archive")
    theirs = services.collection_create(owner=stranger, name="X", kind="archive")
    url = f"/api/collections/{collection.id}/archives/"
    response = api.put(url, {"archives": [mine.id, theirs.id, collection.id]}, format="json")
    assert response.json() == {"archives": [mine.id], "all": False}
    assert api.put(url, {"archives": "x"}, format="json").status_code == 400
