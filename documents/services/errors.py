"""Errors the services raise for the user to read (answered by `core.errors`' handlers)."""

from __future__ import annotations

from core.errors import AppError


class UploadError(AppError):
    """The upload is refused; the message tells the user why."""

    field = "file"


class TemplateError(UploadError):
    """A template where there can be none (an archive); `field` is the upload's file, or the
    document's `template` flag when it is set later."""


class ImportRefused(UploadError):
    """A bulk import is refused (not an archive, no files, a file that cannot be imported)."""

    field = "files"


class CollectionError(AppError):
    """A collection's settings are refused (no name, an unknown kind)."""


class DocumentError(AppError):
    """A document's settings are refused (a submission time without a time zone)."""


class VerdictError(AppError):
    """A verdict is refused (an unknown value, no such pair or passage)."""

    field = "verdict"
