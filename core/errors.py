"""The application's error base class and the two places that turn it into an answer.

A service raises an `AppError` subclass whose message tells the user what went wrong and how
to fix it. The API answers it through `api_exception_handler` (DRF's `EXCEPTION_HANDLER`) as
`{"<field>": ["message"]}` or `{"detail": "message"}` with the error's status; a web page
through `AppErrorMiddleware`, which shows the message and sends the browser back to the page
the form was on. Views therefore do not catch these errors themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from rest_framework.response import Response
from rest_framework.views import exception_handler


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


class ConflictError(AppError):
    """The request conflicts with the current state of the resource (HTTP 409)."""

    status_code = 409


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus `AppError` answered with its body and status."""
    if isinstance(exc, AppError):
        return Response(exc.body(), status=exc.status_code)
    return exception_handler(exc, context)


class AppErrorMiddleware:
    """On a web page, an `AppError` becomes a message on the page the request came from."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, AppError) or request.path.startswith("/api/"):
            return None
        messages.error(request, str(exception))
        return HttpResponseRedirect(_back(request))


def _back(request: HttpRequest) -> str:
    """The page the form was posted from when it is on this site, else the home page."""
    referer = request.META.get("HTTP_REFERER", "")
    allowed = {request.get_host()}
    if referer and url_has_allowed_host_and_scheme(referer, allowed, request.is_secure()):
        return referer
    return "/"
