"""The optional copydetect PostgreSQL extension (`documents/pgext`): one aggregate,
`posting_pack(feature, ref) -> bytea`, with which a lookup sends its postings as one bytea
of 16 bytes each instead of two `bigint[]`.

PostgreSQL sends a `bigint[]` with `array_send`, which calls `int8send` through the function
manager for every element (~10,000 elements for a worst-case lookup of ~5,000 postings); the
bytea is sent as it is. The extension is built and installed by
`scripts/setup.sh` (server headers from `postgresql-server-dev-all`) and created in the
database after every `migrate` (`ensure_extension`, connected to `post_migrate`) when the
server offers it; it is `trusted`, so the database's owner may create it. A server without
it (a managed PostgreSQL, a machine without root) runs the same lookups with `array_agg`:
the same postings, a little slower. Which form a connection uses is decided once per
connection (`packing`).
"""

from __future__ import annotations

import logging
import weakref

import numpy as np
import psycopg
from django.db import DatabaseError, connections, transaction

EXTENSION = "copydetect"
PACK_AGGREGATE = "posting_pack"
# What posting_pack returns: per posting the feature and the ref, big-endian int64 each.
PACKED = np.dtype([("feature", ">i8"), ("ref", ">i8")])

logger = logging.getLogger(__name__)
_PACKING: weakref.WeakKeyDictionary[psycopg.Connection, bool] = weakref.WeakKeyDictionary()


def ensure_extension(using: str = "default") -> bool:
    """Create (or update to the offered version) the extension in database `using` when the
    server offers it; True when it is there afterwards. Never raises for a server without
    it, or a role that may not create it: the lookups then use `array_agg`."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT default_version, installed_version FROM pg_available_extensions"
            " WHERE name = %s",
            [EXTENSION],
        )
        row = cursor.fetchone()
        if row is None:
            logger.info("PostgreSQL offers no %s extension: lookups use array_agg", EXTENSION)
            return False
        offered, installed = row
        if installed == offered:
            return True
        statement = (
            f"CREATE EXTENSION {EXTENSION}"
            if installed is None
            else f"ALTER EXTENSION {EXTENSION} UPDATE TO '{offered}'"
        )
    try:
        with transaction.atomic(using=using), connection.cursor() as cursor:
            cursor.execute(statement)
    except DatabaseError as error:  # a role without CREATE on the database, say
        logger.warning("%s failed (%s): lookups use array_agg", statement, error)
        return installed is not None
    forget_packing()
    return True


def ensure_extension_after_migrate(
    sender: object, using: str = "default", **kwargs: object
) -> None:
    """`post_migrate` receiver: every `migrate` (make run, make serve, the test database)
    creates the extension once the server offers it, also when it was installed later."""
    ensure_extension(using)


def packing(connection: psycopg.Connection) -> bool:
    """Whether lookups on this connection aggregate with `posting_pack` (asked once per
    connection: the aggregate is visible on its search_path)."""
    known = _PACKING.get(connection)
    if known is None:
        with psycopg.ClientCursor(connection) as cursor:
            cursor.execute(
                f"SELECT to_regprocedure('{PACK_AGGREGATE}(bigint, bigint)') IS NOT NULL"
            )
            row = cursor.fetchone()
        known = _PACKING[connection] = bool(row and row[0])
    return known


def packing_for(using: str) -> bool:
    """`packing` of the Django connection `using` (connected if it is not yet), with Django's
    error translation around the question."""
    connection = connections[using]
    connection.ensure_connection()
    with connection.wrap_database_errors:
        return packing(connection.connection)


def forget_packing() -> None:
    """Ask every connection again (after the extension was created or dropped)."""
    _PACKING.clear()


def unpack(data: bytes | memoryview) -> tuple[np.ndarray, np.ndarray]:
    """`posting_pack`'s bytea as (features, refs), two native int64 arrays."""
    pairs = np.frombuffer(data, PACKED)
    return pairs["feature"].astype(np.int64), pairs["ref"].astype(np.int64)
