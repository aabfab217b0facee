"""The lookup of `PostgresSentenceIndex.postings` in each scope: all documents, some documents,
some collections (documents.index.lookup), against an archive with features in one document
and in many."""

import numpy as np
import pytest

from detection import DocumentAnalysis, SentenceRecord
from documents import services
from documents.index import store as pg_index
from documents.index.store import PostgresSentenceIndex
from documents.models import Document

pytestmark = pytest.mark.django_db

V1 = "model-v1"


@pytest.fixture
def archive(owner):
    """Thirty documents over a small vocabulary of features: some in one document, some in
    many (several above a lookup's max_df), in two collections."""
    rng = np.random.default_rng(7)
    collections = [services.collection_create(owner=owner, name=f"c{k}") for k in range(2)]
    documents = []
    for n in range(30):
        common = {0, 3} if n % 3 != 2 else set()  # in 20 documents
        sentences = [
            tuple(sorted(common | {int(f) for f in rng.integers(-40, 40, rng.integers(1, 8))}))
            for _ in range(rng.integers(1, 6))
        ]
        records = tuple(
            SentenceRecord(index=i, start=10 * i, end=10 * i + 5, features=f)
            for i, f in enumerate(sentences)
        )
        document = Document.objects.create(
            collection=collections[n % 2], filename=f"{n}.txt", checksum=f"{n:064}",
            model_version=V1, sentence_starts=[r.start for r in records],
            sentence_ends=[r.end for r in records],
        )  # fmt: skip
        documents.append(
            (document.id, DocumentAnalysis(language="en", model_version=V1, sentences=records))
        )
    PostgresSentenceIndex(model_version=V1).add_many(documents)
    return [d for d, _ in documents], [c.id for c in collections]


def as_set(found):
    return set(zip(found.features.tolist(), found.refs.tolist(), strict=True))


@pytest.mark.parametrize("scope", ["documents", "collections"])
def test_a_scoped_lookup_is_the_unscoped_one_within_the_scope(archive, scope):
    ids, collections = archive
    inside = {"documents": set(ids[::3]), "collections": {
        d.id for d in Document.objects.filter(collection_id=collections[0])}}[scope]  # fmt: skip
    kwargs = {"documents": {"documents": ids[::3]}, "collections": {
        "collections": collections[:1]}}[scope]  # fmt: skip
    wanted = set(range(-45, 45, 3))
    everywhere = as_set(PostgresSentenceIndex(model_version=V1).postings(wanted, max_df=None))

    found = as_set(PostgresSentenceIndex(model_version=V1, **kwargs).postings(wanted, max_df=None))

    assert found and found == {(f, r) for f, r in everywhere if r >> 32 in inside}


def test_a_df_limit_leaves_the_common_features_out_and_an_unknown_feature_finds_nothing(archive):
    pg_index._HEAVY.clear()
    index = PostgresSentenceIndex(model_version=V1)
    wanted = set(range(-45, 45, 3))
    unlimited = as_set(index.postings(wanted, max_df=None))
    limited = as_set(index.postings(wanted, max_df=6))

    assert limited < unlimited
    assert not {f for f, _ in limited} & {0, 3}  # in 20 documents, above the limit
    assert as_set(index.postings({10_000, 10_001}, max_df=6)) == set()


def test_migration_0024_drops_the_former_extension_where_the_server_still_offers_it():
    from importlib import import_module

    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'copydetect'")
        if cursor.fetchone() is None:
            pytest.skip("this server never had the copydetect extension")
        cursor.execute("CREATE EXTENSION IF NOT EXISTS copydetect")
        cursor.execute(import_module("documents.migrations.0024_drop_copydetect_extension").DROP)
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'copydetect'")
        assert cursor.fetchone() is None
