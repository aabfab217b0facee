"""Stored runs from pickles to the versioned form of `detection.neardup.encoding`.

A run's fitted method and its signatures were pickles, which load only while every class keeps
its name and module. This rewrites them once; a run whose pickle no longer loads loses its
fitted method and signatures (streaming skips such a run until it is run again, as it skips a
run of another method version). Backwards, the rows are pickled again.
"""

import pickle
from collections.abc import Callable

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from detection.neardup.encoding import (
    method_decode,
    method_encode,
    signature_decode,
    signature_encode,
)

BATCH = 2_000


def _is_encoded(data: bytes) -> bool:
    return bytes(data[:1]) == b"{"  # a JSON object; a pickle starts with its protocol byte


def fitted_method_convert(data: bytes) -> bytes:
    """A fitted method pickled by the code before this migration, in the versioned form."""
    if _is_encoded(data):
        return bytes(data)
    return method_encode(pickle.loads(bytes(data)))  # noqa: S301 - this database's own rows


def signature_convert(method: str, data: bytes) -> bytes:
    """A signature of `method` pickled by the code before this migration, in the versioned form."""
    if _is_encoded(data):
        return bytes(data)
    return signature_encode(method, pickle.loads(bytes(data)))  # noqa: S301 - as above


def _pickled_method(data: bytes) -> bytes:
    return pickle.dumps(method_decode(data)) if _is_encoded(data) else bytes(data)


def _pickled_signature(method: str, data: bytes) -> bytes:
    return pickle.dumps(signature_decode(method, data)) if _is_encoded(data) else bytes(data)


def _rewrite(
    apps: StateApps,
    using: str,
    fitted: Callable[[bytes], bytes],
    signature: Callable[[str, bytes], bytes],
) -> None:
    runs = apps.get_model("dedup", "DedupRun").objects.using(using)
    signature_model = apps.get_model("dedup", "Signature")
    for run in runs.exclude(fitted_method=None).iterator(chunk_size=100):
        signatures = (
            signature_model.objects.using(using).filter(run=run).only("id", "method", "data")
        )
        try:
            run.fitted_method = fitted(run.fitted_method)
            changed = []
            for row in signatures.iterator(chunk_size=BATCH):
                row.data = signature(row.method, row.data)
                changed.append(row)
        except Exception:  # noqa: BLE001 - a pickle of classes that changed since: unreadable
            run.fitted_method = None
            signatures.delete()
            changed = []
        signature_model.objects.using(using).bulk_update(changed, ["data"], batch_size=BATCH)
        run.save(using=using, update_fields=["fitted_method"])


def forwards(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    _rewrite(apps, schema_editor.connection.alias, fitted_method_convert, signature_convert)


def backwards(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    _rewrite(apps, schema_editor.connection.alias, _pickled_method, _pickled_signature)


class Migration(migrations.Migration):
    dependencies = [("dedup", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]
