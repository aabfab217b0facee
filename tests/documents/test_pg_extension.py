"""The copydetect PostgreSQL extension (documents/pgext): its aggregate, and lookups that give
the same postings with it and without it (a server that does not offer it)."""

import logging
import os

import numpy as np
import pytest
from django.db import connection

from detection import DocumentAnalysis, SentenceRecord
from documents import services as document_services
from documents.index import extension as pg_extension
from documents.index import store as pg_index
from documents.index.store import PostgresSentenceIndex
from documents.models import Document

pytestmark = pytest.mark.django_db

V1 = "model-v1"
# `make test` installs the extension (scripts/setup.sh, as root or with sudo); a checkout that
# cannot (no root, a server without headers) runs the suite with this set.
ALLOW_MISSING = "COPYDETECT_ALLOW_NO_PGEXT"


def execute(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else None


def test_the_test_database_has_the_extension():
    if os.environ.get(ALLOW_MISSING) == "1":
        pytest.skip(f"{ALLOW_MISSING}=1")
    assert execute("SELECT extversion FROM pg_extension WHERE extname = 'copydetect'") == [("1.0",)]
    assert pg_extension.packing(connection.connection)


@pytest.fixture
def extension():
    if not execute("SELECT 1 FROM pg_extension WHERE extname = 'copydetect'"):
        pytest.skip("the copydetect extension is not installed")


def test_posting_pack_is_the_pairs_in_row_order_big_endian(extension):
    values = [(-(2**63), 2**63 - 1), (5, 1 << 32), (-1, 0)]
    [(packed,)] = execute(
        "SELECT posting_pack(f, r ORDER BY k) FROM unnest(%s::bigint[], %s::bigint[])"
        " WITH ORDINALITY AS u(f, r, k)",
        [[f for f, _ in values], [r for _, r in values]],
    )
    assert bytes(packed) == b"".join(
        f.to_bytes(8, "big", signed=True) + r.to_bytes(8, "big", signed=True) for f, r in values
    )
    features, refs = pg_extension.unpack(packed)
    assert features.dtype == refs.dtype == np.int64
    assert list(zip(features.tolist(), refs.tolist(), strict=True)) == values


def test_posting_pack_of_no_rows_is_null_and_rows_with_a_null_are_skipped(extension):
    assert execute("SELECT posting_pack(1, 2) WHERE false") == [(None,)]
    [(packed,)] = execute(
        "SELECT posting_pack(f, r) FROM (VALUES (1::bigint, NULL::bigint), (NULL, 2), (3, 4))"
        " AS v(f, r)"
    )
    assert bytes(packed) == (3).to_bytes(8, "big") + (4).to_bytes(8, "big")


def test_posting_pack_grows_past_its_first_buffer(extension):
    [(packed,)] = execute("SELECT posting_pack(g, -g) FROM generate_series(1, 5000) AS g")
    features, refs = pg_extension.unpack(packed)
    assert features.tolist() == list(range(1, 5001))
    assert (refs == -features).all()


@pytest.fixture
def archive(owner):
    """Thirty documents over a small vocabulary of features: some in one document, some in
    many (several above a lookup's max_df), in two collections."""
    rng = np.random.default_rng(7)
    collections = [document_services.collection_create(owner=owner, name=f"c{k}") for k in range(2)]
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


def lookups(index):
    """Every kind of lookup a check makes: unlimited, with a df limit, and a feature set that
    is found nowhere."""
    wanted = set(range(-45, 45, 3))
    return [
        index.postings(wanted, max_df=None),
        index.postings(wanted, max_df=6),
        index.postings({10_000, 10_001}, max_df=6),
    ]


def as_set(found):
    return set(zip(found.features.tolist(), found.refs.tolist(), strict=True))


@pytest.mark.parametrize("scope", ["all", "documents", "collections"])
def test_packed_and_array_lookups_return_the_same_postings(extension, archive, scope, monkeypatch):
    ids, collections = archive
    kwargs = {"all": {}, "documents": {"documents": ids[::3]}, "collections": {
        "collections": collections[:1]}}[scope]  # fmt: skip
    results = {}
    for packed in (True, False):
        monkeypatch.setattr(pg_index, "packing_for", lambda _using, packed=packed: packed)
        pg_index._HEAVY.clear()  # each form learns the heavy features anew
        index = PostgresSentenceIndex(model_version=V1, **kwargs)
        results[packed] = [as_set(found) for found in lookups(index)]
        results[packed].append(set(index.too_common.tolist()))
    assert results[True] == results[False]
    assert results[True][0] and results[True][1] < results[True][0]  # the limit left some out
    assert results[True][2] == set()


def test_a_server_without_the_aggregate_gets_the_array_lookup(archive, monkeypatch):
    monkeypatch.setattr(pg_extension, "PACK_AGGREGATE", "no_such_aggregate")
    pg_extension.forget_packing()
    try:
        assert not pg_extension.packing(connection.connection)
        index = PostgresSentenceIndex(model_version=V1)
        sql, _ = index.lookup_statement({1, 2}, guard=None)
        assert "array_agg(h.feature)" in sql and "posting_pack" not in sql
        assert len(index.postings({1, 2}, max_df=None)) > 0
    finally:
        pg_extension.forget_packing()


def test_ensure_extension_creates_it_again_and_tolerates_a_server_without_it(
    extension, monkeypatch, caplog
):
    execute("DROP EXTENSION copydetect")
    pg_extension.forget_packing()
    assert not pg_extension.packing(connection.connection)
    assert pg_extension.ensure_extension()
    assert pg_extension.packing(connection.connection)  # asked again after creating it
    monkeypatch.setattr(pg_extension, "EXTENSION", "copydetect_not_offered")
    with caplog.at_level(logging.INFO, logger="documents.index.extension"):
        assert not pg_extension.ensure_extension()
    assert "offers no copydetect_not_offered extension" in caplog.text


def test_ensure_extension_logs_and_goes_on_when_the_role_may_not_create_it(monkeypatch, caplog):
    """An untrusted extension the server offers: the app's role (not a superuser) may not
    create it; migrate must still finish."""
    [(superuser,)] = execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    offered = execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pgstattuple'")
    if superuser or not offered:
        pytest.skip("needs a role that is not a superuser and the pgstattuple extension")
    monkeypatch.setattr(pg_extension, "EXTENSION", "pgstattuple")
    with caplog.at_level(logging.WARNING, logger="documents.index.extension"):
        assert not pg_extension.ensure_extension()
    assert "CREATE EXTENSION pgstattuple failed" in caplog.text
    assert execute("SELECT 1") == [(1,)]  # the connection's transaction is still usable
