"""PostgreSQL down or restarting while a request runs: the API answers 503 `{"detail": ...}`
and the pages a 503 page of their own, both with `Retry-After`, instead of a 500; an upload
the database failed leaves neither a row nor a file (core.errors, core.stored_files).

The outage is simulated on the test's own connection: a statement fails as psycopg and
Django raise it when the server shuts down mid-transaction, or the connection cannot be
opened at all."""

from __future__ import annotations

import contextlib
import io
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import InterfaceError, ProgrammingError, connection

from documents.models import Document, UploadKey
from tests.documents.factories import WATER, WATER_COPIED, database_error, upload

pytestmark = pytest.mark.django_db

UNAVAILABLE = "The service is temporarily unavailable (its database cannot be reached)"
NOT_STORED = f"{UNAVAILABLE}, so the upload was not stored: please send it again in 30 seconds."
READ_LATER = f"{UNAVAILABLE}: please try again in 30 seconds."
STARTING = "the database system is starting up"
LOST = "server closed the connection unexpectedly"
SHUTDOWN = "terminating connection due to administrator command"
KEY = {"Idempotency-Key": "k-1"}
REFUSED = 'connection failed: connection to server at "127.0.0.1", port 54329 failed: refused'


@pytest.fixture
def media(settings, tmp_path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def stored_files(media: Path) -> list[Path]:
    return [path for path in media.rglob("*") if path.is_file()] if media.exists() else []


@contextlib.contextmanager
def statements_fail(
    when: Callable[[str], bool], cause: Callable[[], Exception] | None = None
) -> Iterator[None]:
    """The statements for which `when(sql)` holds fail, by default as the server shutting
    down fails them (SQLSTATE 57P01)."""
    make = cause or (lambda: database_error(psycopg.errors.AdminShutdown(SHUTDOWN)))

    def execute(run, sql, params, many, context):  # type: ignore[no-untyped-def]
        if when(sql):
            raise make()
        return run(sql, params, many, context)

    with connection.execute_wrapper(execute):
        yield


def nth_insert(table: str, n: int) -> Callable[[str], bool]:
    """Holds for the `n`-th INSERT into `table` (1: the first) and every one after it."""
    seen = 0

    def when(sql: str) -> bool:
        nonlocal seen
        if not sql.startswith(f'INSERT INTO "{table}"'):
            return False
        seen += 1
        return seen >= n

    return when


@contextlib.contextmanager
def connection_refused() -> Iterator[None]:
    """No connection can be opened (the server is down), as psycopg words it."""

    def refuse() -> None:
        raise database_error(psycopg.OperationalError(REFUSED))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(connection, "ensure_connection", refuse)
        yield


def post_file(client, collection_id: int, name: str, data: bytes, **headers: str):  # type: ignore[no-untyped-def]
    return client.post(
        f"/api/collections/{collection_id}/documents/",
        {"file": SimpleUploadedFile(name, data, content_type="text/plain")},
        format="multipart",
        headers=headers,
    )


def assert_unavailable_json(response, detail: str) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": detail}


def zipped(**members: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


# --- uploads through the API -----------------------------------------------------------------


def test_an_api_upload_the_database_fails_mid_transaction_stores_neither_row_nor_file(
    api, assignment, media
):
    with statements_fail(nth_insert("documents_document", 1)):
        response = post_file(api, assignment.id, "essay.txt", WATER.encode())
    assert_unavailable_json(response, NOT_STORED)
    assert not Document.objects.exists()
    assert stored_files(media) == []

    again = post_file(api, assignment.id, "essay.txt", WATER.encode())
    assert again.status_code == 201  # the same request, sent again once the database is back
    assert len(stored_files(media)) == 1


def test_an_api_upload_while_no_connection_can_be_opened_is_answered_503(api, assignment, media):
    with connection_refused():
        response = post_file(api, assignment.id, "essay.txt", WATER.encode())
    assert_unavailable_json(response, NOT_STORED)
    assert not Document.objects.exists()
    assert stored_files(media) == []


def test_a_zip_batch_the_database_fails_halfway_keeps_none_of_its_files(api, assignment, media):
    data = zipped(**{"a.txt": WATER, "b.txt": WATER_COPIED})
    with statements_fail(nth_insert("documents_document", 2)):
        response = post_file(api, assignment.id, "batch.zip", data)
    assert_unavailable_json(response, NOT_STORED)
    assert not Document.objects.exists()
    assert stored_files(media) == []  # a.txt's file was written, and deleted again


def test_an_upload_with_a_key_the_database_fails_leaves_the_key_free_for_the_retry(
    api, assignment, media
):
    with statements_fail(lambda sql: sql.startswith('UPDATE "documents_uploadkey"')):
        response = post_file(api, assignment.id, "essay.txt", WATER.encode(), **KEY)
    assert_unavailable_json(response, NOT_STORED)
    assert not Document.objects.exists() and not UploadKey.objects.exists()
    assert stored_files(media) == []

    again = post_file(api, assignment.id, "essay.txt", WATER.encode(), **KEY)
    assert again.status_code == 201 and "Idempotent-Replayed" not in again


# --- uploads through the page's form ---------------------------------------------------------


def test_a_form_upload_the_database_fails_shows_the_503_page_and_stores_no_file(
    browser, assignment, media
):
    files = [
        SimpleUploadedFile("one.txt", WATER.encode()),
        SimpleUploadedFile("two.txt", WATER_COPIED.encode()),
    ]
    page = f"http://testserver/collections/{assignment.id}/"
    with statements_fail(nth_insert("documents_document", 2)):
        response = browser.post(
            f"/collections/{assignment.id}/upload/", {"files": files}, headers={"Referer": page}
        )
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    html = response.content.decode()
    assert NOT_STORED in html
    assert f'<a href="{page}">Back to the form</a>' in html
    assert not Document.objects.exists()  # one.txt was stored first, and rolled back with two
    assert stored_files(media) == []


def test_a_form_upload_without_an_outage_still_reports_each_refused_file(
    browser, assignment, media
):
    files = [SimpleUploadedFile("empty.txt", b""), SimpleUploadedFile("one.txt", WATER.encode())]
    response = browser.post(f"/collections/{assignment.id}/upload/", {"files": files}, follow=True)
    shown = [str(message) for message in response.context["messages"]]
    assert shown == ["empty.txt is empty.", "1 file(s) queued for checking."]
    assert list(Document.objects.values_list("filename", flat=True)) == ["one.txt"]


# --- reads -----------------------------------------------------------------------------------


def test_a_page_read_during_an_outage_shows_the_503_page(browser, assignment, media):
    with statements_fail(lambda sql: True):  # the session itself cannot be read
        response = browser.get(f"/collections/{assignment.id}/?sort=name")
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    html = response.content.decode()
    assert READ_LATER in html
    assert f'<a href="/collections/{assignment.id}/?sort=name">Try again</a>' in html


@pytest.mark.parametrize(
    "error",
    [
        lambda: database_error(psycopg.OperationalError(REFUSED)),
        lambda: database_error(psycopg.errors.CannotConnectNow(STARTING)),
        lambda: database_error(psycopg.OperationalError(LOST)),
        lambda: InterfaceError("connection already closed"),
    ],
    ids=["refused", "starting-up", "connection-lost", "connection-closed"],
)
def test_an_api_read_during_an_outage_is_answered_503_json(api, assignment, error):
    upload(assignment, "essay.txt", WATER.encode())
    with statements_fail(lambda sql: True, error):
        response = api.get(f"/api/collections/{assignment.id}/documents/")
    assert_unavailable_json(response, READ_LATER)


def test_the_503_is_json_even_for_a_browser_asking_for_the_browsable_api(api, assignment):
    with connection_refused():
        response = api.get(f"/api/collections/{assignment.id}/", headers={"Accept": "text/html"})
    assert_unavailable_json(response, READ_LATER)


def test_a_change_refused_by_the_outage_says_it_was_not_carried_out(api, assignment):
    with connection_refused():
        response = api.patch(f"/api/collections/{assignment.id}/", {"name": "New"}, format="json")
    assert_unavailable_json(
        response,
        f"{UNAVAILABLE}, so the request was not carried out: please try again in 30 seconds.",
    )


def test_a_database_error_that_is_no_outage_is_still_a_server_error(api, assignment):
    def bug() -> Exception:
        return database_error(psycopg.errors.UndefinedColumn('column "nope" does not exist'))

    with statements_fail(lambda sql: True, bug), pytest.raises(ProgrammingError):
        api.get(f"/api/collections/{assignment.id}/documents/")
