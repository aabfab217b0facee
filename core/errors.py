"""The application's error base class and the two places that turn it into an answer.

A service raises an `AppError` subclass whose message tells the user what went wrong and how
to fix it. The API answers it through `api_exception_handler` (DRF's `EXCEPTION_HANDLER`) as
`{"<field>": ["message"]}` or `{"detail": "message"}` with the error's status; a web page
through `AppErrorMiddleware`, which shows the message and sends the browser back to the page
the form was on. Views therefore do not catch these errors themselves.

The database down, restarting or unreachable (`core.transient.is_unavailable`) is answered
the same way, as a `ServiceUnavailable` (503 with `Retry-After`): `{"detail": "message"}`
under /api/, a page of its own elsewhere. Its message says whether an upload was stored: it
was not, since an upload commits its rows and files in one transaction
(`core.stored_files`). Neither answer reads the database (no session, no user).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler

from core.transient import is_unavailable

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
# A restart of PostgreSQL takes seconds; a client that waits this long before sending the
# request again is likely to find it back.
RETRY_AFTER_SECONDS = 30


class AppError(Exception):
    """An error the user can act on. `field` names the input it concerns (None: the request
    as a whole); `extra` adds keys to the API's error body; `status_code` is the HTTP status."""

    status_code = 400
    field: str | None = None

    def __init__(self, message: str, *, field: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        if field is not None:
            self.field = field
        self.extra = extra

    def body(self) -> dict[str, Any]:
        """The API's error body: the message under its field, or under `detail`."""
        body: dict[str, Any] = {self.field: [str(self)]} if self.field else {"detail": str(self)}
        return {**body, **self.extra}

    def headers(self) -> dict[str, str]:
        """Headers the answer carries besides the body."""
        return {}


class ConflictError(AppError):
    """The request conflicts with the current state of the resource (HTTP 409)."""

    status_code = 409


class ServiceUnavailable(AppError):
    """The request cannot be served now (the database is down or restarting) and may be
    sent again later: HTTP 503 with `Retry-After`."""

    status_code = 503

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(RETRY_AFTER_SECONDS)}


def database_unavailable(request: HttpRequest, error: BaseException) -> ServiceUnavailable:
    """The answer to `request` when the database failed it with `error`, worded by what the
    request asked: a read, an upload (a multipart POST), another change."""
    logger.warning("database unavailable: %s %s: %r", request.method, request.path, error)
    reason = "The service is temporarily unavailable (its database cannot be reached)"
    later = f"in {RETRY_AFTER_SECONDS} seconds"
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return ServiceUnavailable(f"{reason}: please try again {later}.")
    if request.content_type == "multipart/form-data":
        return ServiceUnavailable(
            f"{reason}, so the upload was not stored: please send it again {later}."
        )
    return ServiceUnavailable(
        f"{reason}, so the request was not carried out: please try again {later}."
    )


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus `AppError` answered with its body and status, and a database
    outage as `ServiceUnavailable`, always as JSON (the browsable API reads the user)."""
    request = context["request"]
    if is_unavailable(exc):
        exc = database_unavailable(request._request, exc)
        request.accepted_renderer, request.accepted_media_type = JSONRenderer(), "application/json"
    if isinstance(exc, AppError):
        return Response(exc.body(), status=exc.status_code, headers=exc.headers())
    return exception_handler(exc, context)


class AppErrorMiddleware:
    """On a web page, an `AppError` becomes a message on the page the request came from."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_unavailable(exception):
            return unavailable_response(request, database_unavailable(request, exception))
        if not isinstance(exception, AppError) or request.path.startswith(API_PREFIX):
            return None
        messages.error(request, str(exception))
        return HttpResponseRedirect(_back(request))


def unavailable_response(request: HttpRequest, error: ServiceUnavailable) -> HttpResponse:
    """`error` as JSON under /api/ (a view DRF does not serve), else as a page of its own,
    rendered without the request: its context (the user, the messages) reads the database."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse(error.body(), status=error.status_code, headers=error.headers())
    safe = request.method in ("GET", "HEAD")
    page = render_to_string(
        "unavailable.html",
        {
            "message": str(error),
            "again": request.get_full_path() if safe else _back(request),
            "again_label": "Try again" if safe else "Back to the form",
        },
    )
    return HttpResponse(page, status=error.status_code, headers=error.headers())


def _back(request: HttpRequest) -> str:
    """The page the form was posted from when it is on this site, else the home page."""
    referer = request.META.get("HTTP_REFERER", "")
    allowed = {request.get_host()}
    if referer and url_has_allowed_host_and_scheme(referer, allowed, request.is_secure()):
        return referer
    return "/"
