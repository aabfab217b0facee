"""Idempotent uploads: an `Idempotency-Key` makes a retried request return the first answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.utils import timezone

from core import stored_files
from core.errors import AppError, ConflictError
from documents.models import UploadKey

KEY_LENGTH = UploadKey._meta.get_field("key").max_length


@dataclass(frozen=True)
class Answer:
    """What a request answered: its HTTP status, its JSON body, the documents it created."""

    status: int
    body: Any
    document_ids: Sequence[int] = field(default_factory=tuple)
    replayed: bool = False


def upload_once(
    *, user: AbstractBaseUser, key: str, request: str, answer: Callable[[], Answer]
) -> Answer:
    """`answer()`, or with a `key` the first answer to `user`'s requests with that key.

    The key is taken in the transaction that uploads, so a concurrent retry waits for the first
    request (PostgreSQL's unique index) and then gets its answer; an upload that fails (a
    refused file) stores nothing, and a retry with the key is judged anew. A key used before
    for another request is refused (409)."""
    if not key:
        return answer()
    if len(key) > (KEY_LENGTH or 255):
        raise AppError(f"The Idempotency-Key is longer than {KEY_LENGTH} characters.")
    with stored_files.atomic():  # a failed upload's files go with its rows
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {UploadKey._meta.db_table} (user_id, key, request, status, body,"
                " document_ids, created_at) VALUES (%s, %s, %s, 0, '{}', '{}', now())"
                " ON CONFLICT (user_id, key) DO NOTHING RETURNING id",
                [user.pk, key, request],
            )
            taken = cursor.fetchone()
        if taken is None:
            return _first(user, key, request)
        first = answer()
        UploadKey.objects.filter(id=taken[0]).update(
            status=first.status, body=first.body, document_ids=list(first.document_ids)
        )
    return first


def _first(user: AbstractBaseUser, key: str, request: str) -> Answer:
    stored = UploadKey.objects.get(user_id=user.pk, key=key)
    if stored.request != request:
        raise ConflictError(
            f"This Idempotency-Key was used for another request ({stored.request}); "
            "use a new key for each upload."
        )
    return Answer(stored.status, stored.body, tuple(stored.document_ids), replayed=True)


def upload_keys_expire() -> int:
    """Delete the keys older than `UploadKey.KEPT_HOURS`; returns how many."""
    before = timezone.now() - timedelta(hours=UploadKey.KEPT_HOURS)
    deleted, _ = UploadKey.objects.filter(created_at__lt=before).delete()
    return deleted
