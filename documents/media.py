"""Files in the media storage that no row refers to: what an interruption leaves behind.

An upload stores its original before its row commits, and an import's workers store a chunk's
originals before the chunk's transaction; a process killed in between (or a transaction that
fails) leaves those files without a row. `manage.py clean_media` lists them, and deletes them
with `--delete`. Only the product's folders are looked at (`originals/`, `imports/`), and only
files older than `older_than`, so an upload still in flight is never taken for one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import cast

from django.core.files.storage import Storage, default_storage
from django.utils import timezone

from documents.bulk.jobs import UPLOADS_FOLDER
from documents.models import ArchiveImport, Document

# The top folder of Document.original's upload_to ("originals/%Y/%m/").
ORIGINALS_FOLDER = cast(str, Document._meta.get_field("original").upload_to).split("/")[0]


@dataclass(frozen=True)
class Orphan:
    name: str
    size: int


def orphan_files(*, older_than: timedelta, storage: Storage | None = None) -> Iterator[Orphan]:
    """The files under the product's folders that no document or import refers to, last
    modified more than `older_than` ago."""
    storage = storage or default_storage
    referenced = set(Document.objects.exclude(original="").values_list("original", flat=True))
    for uploads in ArchiveImport.objects.values_list("uploads", flat=True):
        referenced.update(where for where, _ in uploads)
    cutoff = timezone.now() - older_than
    for folder in (ORIGINALS_FOLDER, UPLOADS_FOLDER):
        for name in _files(storage, folder):
            if name not in referenced and storage.get_modified_time(name) < cutoff:
                yield Orphan(name, storage.size(name))


def _files(storage: Storage, folder: str) -> Iterator[str]:
    if not storage.exists(folder):
        return
    folders, files = storage.listdir(folder)
    for name in sorted(files):
        yield f"{folder}/{name}"
    for name in sorted(folders):
        yield from _files(storage, f"{folder}/{name}")


def empty_folders_remove(*, older_than: timedelta, storage: Storage | None = None) -> int:
    """Remove the empty folders of imports (`imports/<id>/`; a local storage's only) last
    modified more than `older_than` ago: a new import's is written into at once, and one
    emptied just now goes at a later run. The month folders of `originals/` stay. Returns
    how many were removed."""
    storage = storage or default_storage
    try:
        root = storage.path(UPLOADS_FOLDER)
    except NotImplementedError:
        return 0
    if not os.path.isdir(root):
        return 0
    cutoff = (timezone.now() - older_than).timestamp()
    removed = 0
    for entry in os.scandir(root):
        if entry.is_dir() and not os.listdir(entry.path) and entry.stat().st_mtime < cutoff:
            os.rmdir(entry.path)
            removed += 1
    return removed
