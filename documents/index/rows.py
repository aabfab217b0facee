"""Model rows written with one COPY instead of INSERT: the bulk archive import's documents, and
the benchmark's (`benchmarks.database.documents_load`), so its ingest figures measure this.

One COPY costs a fraction of `bulk_create`'s INSERT for documents with their text and
sentence spans. Rows without an id get the next ones of the table's own sequence first, as an
insert would give them. Values are what a save would write (`pre_save`, `get_db_prep_save`);
the common field kinds are prepared directly (`_preparer`), since the fields' own calls per
field and row cost more than the rest of the COPY.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import cast

from django.contrib.postgres.fields import ArrayField
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import (
    BigAutoField,
    BigIntegerField,
    BooleanField,
    CharField,
    DateTimeField,
    FloatField,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
    PositiveIntegerField,
    PositiveSmallIntegerField,
    SmallIntegerField,
    TextField,
)
from django.utils import timezone


def rows_copy(instances: Sequence[Model], *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Insert `instances` (all of one model, not saved yet) with one COPY; those without an id
    get the next ones of the table's sequence. Model signals are not sent (nothing in this
    project listens to them)."""
    if not instances:
        return
    connection = connections[using]
    meta = instances[0]._meta
    fields = meta.concrete_fields
    with connection.cursor() as cursor:
        unnumbered = [instance for instance in instances if instance.pk is None]
        if unnumbered:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [meta.db_table, meta.pk.column, len(unnumbered)],
            )
            for instance, (number,) in zip(unnumbered, cursor.fetchall(), strict=True):
                instance.pk = number
        prepared = [_preparer(field, connection, timezone.now()) for field in fields]
        # A concrete field has a column (the stubs type `Field.column` as optional).
        columns = ", ".join(connection.ops.quote_name(cast(str, f.column)) for f in fields)
        statement = f"COPY {connection.ops.quote_name(meta.db_table)} ({columns}) FROM STDIN"
        with cursor.copy(statement) as copy:
            for instance in instances:
                copy.write_row([prepare(instance) for prepare in prepared])
    for instance in instances:
        instance._state.adding = False
        instance._state.db = using


def _preparer(field, connection: BaseDatabaseWrapper, now: datetime) -> Callable[[Model], object]:  # type: ignore[no-untyped-def]
    """What a save would write for `field`, as a function of the instance. The field's own
    `pre_save` and `get_db_prep_save` are the rule; the common kinds are done directly (per
    field and row those calls cost more than the rest of the COPY)."""
    name = field.attname
    if isinstance(field, ArrayField) and isinstance(field.base_field, IntegerField):
        # COPY text: an ArrayField prepares every element by a call of its base field.
        def integers(instance: Model) -> object:
            value = getattr(instance, name)
            return None if value is None else "{" + ",".join(map(str, map(int, value))) + "}"

        return integers
    if isinstance(field, DateTimeField) and (field.auto_now or field.auto_now_add):

        def stamped(instance: Model) -> object:
            setattr(instance, name, now)  # as pre_save does
            return now

        return stamped
    if isinstance(field, JSONField):
        encoder = field.encoder

        def encoded(instance: Model) -> object:
            value = getattr(instance, name)
            return None if value is None else json.dumps(value, cls=encoder)

        return encoded
    if type(field) in _AS_THEY_ARE or isinstance(field, ForeignKey):
        return operator.attrgetter(name)
    return lambda instance: field.get_db_prep_save(field.pre_save(instance, True), connection)


# Fields whose attribute value is what a save writes (get_db_prep_save returns it unchanged).
_AS_THEY_ARE = frozenset(
    {
        BigAutoField,
        BigIntegerField,
        BooleanField,
        CharField,
        FloatField,
        IntegerField,
        PositiveIntegerField,
        PositiveSmallIntegerField,
        SmallIntegerField,
        TextField,
    }  # fmt: skip
)
