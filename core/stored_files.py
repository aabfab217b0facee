"""Files stored for rows of a transaction: deleted again when the transaction rolls back.

An upload stores its file before the row that refers to it is inserted (the row holds the
file's name), so a transaction that fails after the file was written (the database went
down, an INSERT refused) would leave a file no row refers to. Work that stores files wraps
its transaction in `atomic()` and notes each file it stores with `add()`:

- the block's body raises: its rows are rolled back (to its savepoint, when nested), so its
  files are deleted before the error goes on;
- a nested block commits: its files become the enclosing block's, deleted if that one fails;
- the outermost block's COMMIT itself fails: whether the server committed is unknown (the
  connection can drop after the commit), so its files are kept: a row without its file would
  be worse than a file without a row, which `manage.py clean_media` deletes.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextvars import ContextVar

from django.core.files.storage import Storage
from django.db import transaction

logger = logging.getLogger(__name__)

_Files = list[tuple[Storage, str]]
_block: ContextVar[_Files | None] = ContextVar("stored_files_block", default=None)


@contextlib.contextmanager
def atomic(using: str | None = None) -> Iterator[None]:
    """`transaction.atomic(using)` that deletes the files `add()`ed inside it when its rows
    are rolled back (see the module's docstring)."""
    enclosing = _block.get()
    files: _Files = []
    token = _block.set(files)
    body_failed = False
    try:
        with transaction.atomic(using=using):
            try:
                yield
            except BaseException:
                body_failed = True
                raise
    except BaseException:
        if body_failed:
            _delete(files)
        elif enclosing is not None:
            enclosing.extend(files)
        elif files:
            logger.warning(
                "commit failed: %d stored file(s) kept for manage.py clean_media", len(files)
            )
        raise
    else:
        if enclosing is not None:
            enclosing.extend(files)
    finally:
        _block.reset(token)


def add(name: str | None, *, storage: Storage) -> None:
    """Note that `name` was stored in `storage` for a row of the current `atomic()` block
    (outside one the file is the caller's to look after; no name: nothing was stored, as a
    `FieldFile` without a file says)."""
    files = _block.get()
    if files is not None and name:
        files.append((storage, name))


def _delete(files: _Files) -> None:
    for storage, name in files:
        try:
            storage.delete(name)
        except Exception:  # noqa: BLE001 - the error that rolled back is the one to raise
            logger.warning("could not delete %s; clean_media will", name, exc_info=True)
