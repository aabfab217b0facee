"""Upload limits enforced while the body is read (core/uploads.py): a file over
MAX_UPLOAD_BYTES is stopped at the limit, a body over MAX_REQUEST_BYTES is refused from its
Content-Length before it is read, and both answers keep the views' error shapes."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpResponse

from core.uploads import RequestLimitMiddleware, size_text
from documents import services
from documents.models import Document
from tests.ops import spy

pytestmark = pytest.mark.django_db

HANDLERS = [
    "core.uploads.LimitedUploadHandler",
    "tests.ops.spy.SpyHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
]


@pytest.fixture
def collection(owner):
    return services.collection_create(owner=owner, name="Essays")


@pytest.fixture
def limits(settings):
    settings.MAX_UPLOAD_BYTES = 1000
    settings.FILE_UPLOAD_HANDLERS = HANDLERS
    spy.RECEIVED.clear()
    return settings


def post_file(client, url, name, data):
    return client.post(
        url, {"file": SimpleUploadedFile(name, data, content_type="text/plain")},
        format="multipart",
    )  # fmt: skip


def test_an_api_file_over_the_limit_is_stopped_at_the_limit(api, collection, limits):
    response = post_file(api, f"/api/collections/{collection.id}/documents/", "big.txt",
                         b"a" * 50_000)  # fmt: skip
    assert response.status_code == 400
    assert response.json() == {"file": ["big.txt is too large: the limit is 1000 bytes."]}
    # No handler behind the limit got more than the limit: nothing past it is held.
    assert spy.RECEIVED and max(spy.RECEIVED) <= 1000
    assert not Document.objects.exists()


def test_a_file_within_the_limit_is_uploaded(api, collection, limits):
    text = b"A short essay about rivers. " * 30
    response = post_file(api, f"/api/collections/{collection.id}/documents/", "ok.txt", text)
    assert response.status_code == 201
    assert spy.RECEIVED == [len(text)]
    assert Document.objects.get().size == len(text)


def test_a_page_upload_over_the_limit_is_a_message_on_the_page(browser, collection, limits):
    page = f"http://testserver/collections/{collection.id}/"
    response = browser.post(
        f"/collections/{collection.id}/upload/",
        {"files": [SimpleUploadedFile("big.txt", b"a" * 5000)]},
        HTTP_REFERER=page,
    )
    assert response.status_code == 302 and response["Location"] == page
    shown = browser.get(page).content.decode()
    assert "big.txt is too large: the limit is 1000 bytes." in shown
    assert not Document.objects.exists()


def test_without_a_page_to_go_back_to_the_refusal_is_a_page_of_its_own(browser, collection,
                                                                       limits):  # fmt: skip
    response = browser.post(
        f"/collections/{collection.id}/upload/",
        {"files": [SimpleUploadedFile("big.txt", b"a" * 5000)]},
        HTTP_REFERER="https://elsewhere.example/",
    )
    assert response.status_code == 400
    assert "the limit is 1000 bytes" in response.content.decode()


def test_an_api_body_over_the_request_cap_is_a_413(api, collection, settings):
    settings.MAX_REQUEST_BYTES = 2000
    response = post_file(api, f"/api/collections/{collection.id}/documents/", "a.txt",
                         b"a" * 3000)  # fmt: skip
    assert response.status_code == 413
    assert "the limit for one request is 1.95 KB" in response.json()["detail"]
    assert not Document.objects.exists()


class Unreadable(io.RawIOBase):
    def read(self, size: int = -1) -> bytes:
        raise AssertionError("the body was read")


def test_the_request_cap_answers_before_reading_the_body(settings):
    settings.MAX_REQUEST_BYTES = 100
    request = WSGIRequest({
        "REQUEST_METHOD": "POST", "PATH_INFO": "/api/collections/1/documents/",
        "CONTENT_TYPE": "multipart/form-data; boundary=x", "CONTENT_LENGTH": "300000000",
        "wsgi.input": Unreadable(), "SERVER_NAME": "testserver", "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
    })  # fmt: skip
    middleware = RequestLimitMiddleware(lambda request: HttpResponse("view ran"))
    response = middleware(request)
    assert response.status_code == 413
    assert b"286.1 MB" in response.content


def test_sizes_are_worded_as_the_upload_service_words_them():
    assert size_text(20 * 1024 * 1024) == "20 MB"
    assert size_text(1000) == "1000 bytes"
    assert size_text(1536) == "1.5 KB"
