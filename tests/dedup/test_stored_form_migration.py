"""Migration dedup 0002: runs stored as pickles by the earlier code (the fitted method and each
signature pickled whole) are rewritten in the versioned form, and streaming reads them."""

from __future__ import annotations

import importlib
import pickle

import pytest
from django.apps import apps
from django.db import connection

from dedup import run_index, services
from dedup.models import ClusterMember, DedupRun, Signature
from detection.neardup import signature_version
from detection.neardup.encoding import method_decode, signature_decode
from tests.dedup.conftest import STORY_0, STORY_1, STORY_6

pytestmark = pytest.mark.django_db

MIGRATION = importlib.import_module("dedup.migrations.0002_versioned_stored_form")


def migrate(step) -> None:  # type: ignore[no-untyped-def]
    with connection.schema_editor() as editor:
        step(apps, editor)


@pytest.fixture
def pickled_run(collection, owner, add_pages) -> DedupRun:
    """A finished periods run whose rows hold what the earlier code wrote: pickles."""
    add_pages(*STORY_0, *STORY_6, STORY_1[0])
    run = services.dedup_run_start(collection=collection, method="periods")
    services.dedup_run_execute(run_id=run.id)
    run.refresh_from_db()
    DedupRun.objects.filter(id=run.id).update(
        fitted_method=pickle.dumps(method_decode(run.fitted_method))
    )
    for row in Signature.objects.filter(run=run):
        row.data = pickle.dumps(signature_decode(row.method, row.data))
        row.save(update_fields=["data"])
    run_index._RUNS.clear()  # no process has read the run yet
    return run


def test_the_conversion_reads_an_old_pickle_into_the_same_method_and_signatures(pickled_run):
    pickled = pickle.loads(DedupRun.objects.get(id=pickled_run.id).fitted_method)  # noqa: S301
    converted = method_decode(MIGRATION.fitted_method_convert(pickle.dumps(pickled)))
    assert signature_version(converted) == signature_version(pickled)
    text = "同一段文字。" * 20
    assert converted.signature(text) == pickled.signature(text)
    for row in Signature.objects.filter(run=pickled_run):
        old = pickle.loads(row.data)  # noqa: S301
        new = MIGRATION.signature_convert(row.method, row.data)
        assert signature_decode(row.method, new) == old
        assert MIGRATION.signature_convert(row.method, new) == new  # converted once only


def test_a_migrated_run_takes_new_documents_into_its_clusters(pickled_run, add_pages):
    before = {s.document_id: pickle.loads(s.data) for s in Signature.objects.all()}  # noqa: S301

    migrate(MIGRATION.forwards)

    run = DedupRun.objects.get(id=pickled_run.id)
    assert method_decode(run.fitted_method).name == "periods"
    after = {s.document_id: signature_decode(s.method, s.data) for s in Signature.objects.all()}
    assert after == before
    late = add_pages(STORY_1[2])[STORY_1[2]]
    (placed,) = services.dedup_document_assign(document=late)
    first = Signature.objects.exclude(document=late).get(document__filename=STORY_1[0]).document
    assert placed.cluster == ClusterMember.objects.get(run=run, document=first).cluster


def test_back_and_forth_gives_the_same_rows(pickled_run):
    migrate(MIGRATION.forwards)
    encoded = {s.id: bytes(s.data) for s in Signature.objects.all()}
    migrate(MIGRATION.backwards)
    assert all(bytes(s.data)[:1] == b"\x80" for s in Signature.objects.all())  # pickles again
    migrate(MIGRATION.forwards)
    assert {s.id: bytes(s.data) for s in Signature.objects.all()} == encoded


def test_a_run_whose_pickle_no_longer_loads_is_left_for_a_new_run(pickled_run):
    DedupRun.objects.filter(id=pickled_run.id).update(
        fitted_method=pickle.dumps(pickled_run.id)[:-1]  # cut short: pickle cannot read it
    )

    migrate(MIGRATION.forwards)

    assert DedupRun.objects.get(id=pickled_run.id).fitted_method is None
    assert not Signature.objects.filter(run=pickled_run).exists()
    assert run_index.run_index(DedupRun.objects.get(id=pickled_run.id)) is None
