"""Upload limits enforced while the request is read, so memory stays bounded.

- `RequestLimitMiddleware` refuses a request whose Content-Length exceeds `MAX_REQUEST_BYTES`
  before a byte of its body is read (413), and makes Django parse a multipart body here, so a
  file refused by the handler below is answered before any view runs.
- `LimitedUploadHandler`, first in `FILE_UPLOAD_HANDLERS`, counts each file's bytes as they
  arrive and stops the upload once one file exceeds `MAX_UPLOAD_BYTES` (what
  `documents.services.size_allowed` checks after the fact); nothing past the limit is stored.

The answer keeps the shapes the views use for an upload error: under /api/ a JSON 400
`{"<field>": ["<message>"]}` (a whole request too large: 413 `{"detail": "<message>"}`); on a
page the message as a form error (Django's messages) back on the page the form was on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.utils.html import escape
from django.utils.http import url_has_allowed_host_and_scheme

API_PREFIX = "/api/"


def size_text(size: int) -> str:
    """A byte count as people read it ("20 MB", "1.5 KB", "300 bytes"), as the upload
    service words its own limit."""
    for unit, scale in (("MB", 1024 * 1024), ("KB", 1024)):
        if size >= scale:
            digits = 1 if size % (scale // 10) == 0 else 2
            return f"{size / scale:.{digits}f}".rstrip("0").removesuffix(".") + f" {unit}"
    return f"{size} bytes"


@dataclass(frozen=True)
class Refusal:
    """Why an upload was refused: the form field, and the message shown."""

    field: str
    message: str
    status: int


class LimitedUploadHandler(FileUploadHandler):
    """Stops the upload as soon as one file is larger than `MAX_UPLOAD_BYTES`: the refusal is
    kept on the request (`request.upload_refused`) for `RequestLimitMiddleware`, the rest of
    the body is read and thrown away (so the client sees the answer, not a reset
    connection); the other handlers get nothing of that file."""

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        limit = settings.MAX_UPLOAD_BYTES
        if start + len(raw_data) > limit:
            name = self.file_name or "The file"
            message = f"{name} is too large: the limit is {size_text(limit)}."
            self.request.upload_refused = Refusal(  # type: ignore[union-attr]
                self.field_name or "file", message, 400
            )
            raise StopUpload(connection_reset=False)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler (memory or temporary file) returns the file


class RequestLimitMiddleware:
    """Place after MessageMiddleware (a page's refusal is a message)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.MAX_REQUEST_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            message = (
                f"The upload is {size_text(length)}; the limit for one request is "
                f"{size_text(limit)}: send fewer files at a time."
            )
            return refuse(request, Refusal("detail", message, 413))
        if request.method == "POST" and request.content_type == "multipart/form-data":
            request.POST  # noqa: B018 (parse now: the upload handlers run here)
            refusal = getattr(request, "upload_refused", None)
            if refusal is not None:
                return refuse(request, refusal)
        return self.get_response(request)


def refuse(request: HttpRequest, refusal: Refusal) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        body = {refusal.field: refusal.message if refusal.field == "detail" else [refusal.message]}
        return JsonResponse(body, status=refusal.status)
    back = request.META.get("HTTP_REFERER", "")
    if hasattr(request, "_messages") and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        messages.error(request, refusal.message)
        return HttpResponseRedirect(back)
    page = f"<!doctype html><title>Upload refused</title><p>{escape(refusal.message)}</p>"
    return HttpResponse(page, status=413 if refusal.status == 413 else 400)
