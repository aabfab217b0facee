"""Document rows written with one COPY instead of INSERT (the bulk archive import).

`bulk_create` of 200 documents with their text and sentence spans took ~1.2 ms per document
on this machine; COPY takes a fraction of that (docs/benchmarks.md). Ids come from the
table's own sequence first, so the rows keep the ids a normal insert would give them. Values
are prepared by each model field as for a save (`pre_save`, `get_db_prep_save`): timestamps,
file names and JSON the way Django writes them; integer arrays go as COPY text (an ArrayField
prepares every element with a call of its base field: 2.5 s of 5,440 documents' spans).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.postgres.fields import ArrayField
from django.db import connection
from django.db.models import IntegerField, Model


def rows_copy(instances: Sequence[Model]) -> None:
    """Insert `instances` (all of one model, not saved yet) with one COPY; sets their ids.
    Model signals are not sent (nothing in this project listens to them)."""
    if not instances:
        return
    meta = instances[0]._meta
    fields = meta.concrete_fields
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [meta.db_table, meta.pk.column, len(instances)],
        )
        for instance, (number,) in zip(instances, cursor.fetchall(), strict=True):
            instance.pk = number
        columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
        statement = f"COPY {connection.ops.quote_name(meta.db_table)} ({columns}) FROM STDIN"
        with cursor.copy(statement) as copy:
            for instance in instances:
                copy.write_row([_value(f, instance) for f in fields])
    for instance in instances:
        instance._state.adding = False
        instance._state.db = connection.alias


def _value(field, instance: Model) -> object:  # type: ignore[no-untyped-def]
    value = field.pre_save(instance, True)
    if isinstance(field, ArrayField) and isinstance(field.base_field, IntegerField):
        # Not through get_db_prep_save: it prepares every element by its own field call.
        return None if value is None else "{" + ",".join(map(str, map(int, value))) + "}"
    return field.get_db_prep_save(value, connection)
