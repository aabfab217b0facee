"""Uploads: single files and ZIP batches into a collection, with the checks that refuse them."""

from __future__ import annotations

import datetime
import hashlib
import logging
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import connection
from django.utils import timezone

from core import stored_files
from documents.models import Collection, Document
from documents.services.errors import TemplateError, UploadError
from documents.services.requeue import document_enqueue, document_recheck, templates_changed
from extraction import ArchiveMember, ExtractionError, iter_archive
from extraction.errors import size_text
from extraction.formats import resolve as resolve_format

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BatchUpload:
    """What a ZIP batch became: one document per readable member, and what was skipped."""

    documents: tuple[Document, ...]
    skipped: tuple[tuple[str, str], ...]  # (path inside the archive, reason)


@dataclass(frozen=True)
class FilesUpload:
    """What the files of one upload form became."""

    documents: int  # how many documents were stored and queued
    refused: tuple[str, ...]  # why each refused file was refused
    skipped: tuple[tuple[str, str, str], ...]  # (ZIP batch, path inside it, reason)


def is_batch(filename: str) -> bool:
    return filename.lower().endswith(".zip")


def document_upload(
    *,
    collection: Collection,
    filename: str,
    data: bytes,
    folder: str = "",
    enqueue: bool = True,
    template: bool = False,
    submitted_at: datetime.datetime | None = None,
) -> Document:
    """Store the original file and queue its processing once the row is committed
    (`enqueue=False`: the caller runs `document_process` itself). A `template` is text every
    submission was given: never checked, and left out of the other documents' checks.
    `submitted_at`: when the student handed it in (None: now)."""
    filename = file_name(filename)
    if template:
        _template_allowed(collection)
    file_accepted(filename, data)
    with stored_files.atomic():
        collection_open(collection)
        document = Document(
            collection=collection,
            filename=filename[:255],
            folder=folder.strip("/")[:500],
            size=len(data),
            checksum=hashlib.sha256(data).hexdigest(),
            template=template,
            submitted_at=submitted_at or timezone.now(),
        )
        document.original.save(filename, ContentFile(data), save=False)
        stored_files.add(document.original.name, storage=document.original.storage)
        document.save()
        if enqueue:
            document_enqueue(document=document)
    return document


def document_upload_batch(
    *,
    collection: Collection,
    filename: str,
    data: bytes,
    template: bool = False,
    submitted_at: datetime.datetime | None = None,
) -> BatchUpload:
    """Unpack a ZIP batch into documents, keeping each member's folder as metadata. Each is
    submitted at `submitted_at` when given, else at the member's own modification time
    (read in the server's time zone: the archive records none), else now."""
    if template:
        _template_allowed(collection)
    size_allowed(filename, data)
    documents: list[Document] = []
    skipped: list[tuple[str, str]] = []
    try:
        with stored_files.atomic():
            collection_open(collection)
            for member in iter_archive(filename, data):
                if not isinstance(member, ArchiveMember):
                    skipped.append((member.path, _reason(member.reason)))
                    continue
                try:
                    documents.append(_member_upload(collection, member, template, submitted_at))
                except UploadError as error:
                    skipped.append((member.path, _reason(str(error), member.path)))
    except ExtractionError as error:
        raise UploadError(f"{filename}: {error}") from error
    if not documents and not skipped:
        raise UploadError(f"{filename} holds no documents.")
    if not documents:
        reasons = "; ".join(f"{path} ({reason})" for path, reason in skipped[:5])
        more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
        raise UploadError(f"{filename} holds no document that can be checked: {reasons}{more}.")
    return BatchUpload(tuple(documents), tuple(skipped))


def document_upload_files(
    *,
    collection: Collection,
    files: Iterable[tuple[str, bytes]],
    template: bool = False,
    submitted_at: datetime.datetime | None = None,
) -> FilesUpload:
    """Upload the (name, content) `files` of one form, single files and ZIP batches, in one
    transaction: a refused file is reported and the others are stored, but a database
    failure stores none of them (no row, no file), so the form can be sent again as it was."""
    documents = 0
    refused: list[str] = []
    skipped: list[tuple[str, str, str]] = []
    with stored_files.atomic():
        for name, data in files:
            try:
                if not is_batch(name):
                    document_upload(
                        collection=collection, filename=name, data=data,
                        template=template, submitted_at=submitted_at,
                    )  # fmt: skip
                    documents += 1
                    continue
                batch = document_upload_batch(
                    collection=collection, filename=name, data=data,
                    template=template, submitted_at=submitted_at,
                )  # fmt: skip
            except UploadError as error:
                refused.append(str(error))
                continue
            documents += len(batch.documents)
            skipped.extend((name, path, reason) for path, reason in batch.skipped)
    return FilesUpload(documents, tuple(refused), tuple(skipped))


def file_name(filename: str) -> str:
    """An uploaded file's name without the folders a browser may send; UploadError if none."""
    filename = (filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not filename:
        raise UploadError("The file has no name.")
    return filename


def file_accepted(filename: str, data: bytes, *, batch: bool = False) -> None:
    """Refuse at once (UploadError) an empty or too large file, and one that is no document:
    told now, as a ZIP batch tells its members, not as a failed document later. A `batch` is
    unpacked later, its members judged one by one."""
    if not data:
        raise UploadError(f"{filename} is empty.")
    size_allowed(filename, data)
    if batch:
        return
    try:
        resolve_format(filename, data)
    except ExtractionError as error:
        raise UploadError(f"{filename}: {error}.") from error


def size_allowed(filename: str, data: bytes) -> None:
    if len(data) > settings.MAX_UPLOAD_BYTES:
        raise UploadError(
            f"{filename} is {size_text(len(data))}; the limit is "
            f"{size_text(settings.MAX_UPLOAD_BYTES)}."
        )


def _reason(text: str, path: str = "") -> str:
    """Why a ZIP member was skipped, without what the listing already says (its name, and
    that it was skipped): "empty.txt is empty." -> "empty"; "not a document (.exe): skipped"
    -> "not a document (.exe)"."""
    text = text.removesuffix(": skipped")
    name = posixpath.basename(path)
    if name and text.startswith((name + " ", name + ": ")):
        text = text[len(name) + 1 :].lstrip()
        text = text.removeprefix("is ").rstrip(".")
    return text


def collection_open(collection: Collection) -> None:
    """Refuse an upload into a collection being deleted. The row stays share-locked until the
    upload commits, so `collection_delete` (which updates the row) waits for it, and the purge
    then sees and deletes its documents."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {Collection._meta.db_table} WHERE id = %s AND NOT deleting FOR SHARE",
            [collection.id],
        )
        if cursor.fetchone() is not None:
            return
    raise UploadError(f"The collection {collection.name!r} is being deleted or no longer exists.")


def _member_upload(
    collection: Collection,
    member: ArchiveMember,
    template: bool,
    submitted_at: datetime.datetime | None,
) -> Document:
    if submitted_at is None and member.modified is not None:
        submitted_at = timezone.make_aware(member.modified)
    return document_upload(
        collection=collection,
        filename=posixpath.basename(member.path),
        data=member.data,
        folder=member.folder,
        template=template,
        submitted_at=submitted_at,
    )


def document_template_set(*, document: Document, template: bool) -> None:
    """Mark a document as a template (text every submission was given) or not any more. A
    new template is processed again, which then re-checks the collection without its text;
    a former template's collection is re-checked with it (the document included)."""
    if document.template == template:
        return
    if template:
        _template_allowed(document.collection, field="template")
    Document.objects.filter(id=document.id).update(template=template)
    document.template = template
    if template:
        document_recheck(document=document)
    else:
        templates_changed(document.collection_id)


def _template_allowed(collection: Collection, *, field: str = "file") -> None:
    """Templates are what an assignment gave every student; an archive has none (its every
    document is someone's possible source)."""
    if collection.kind == Collection.Kind.ARCHIVE:
        raise TemplateError(
            f"{collection.name} is an archive: templates (text every submission was given) "
            "belong to an assignment.",
            field=field,
        )
