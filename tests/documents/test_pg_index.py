"""PostgresSentenceIndex on the real PostgreSQL: COPY round trip, df, removal, scope, versions."""

import time

import numpy as np
import pytest
from django.db import connection

from detection import DetectionError, DocumentAnalysis, Posting, SentenceRecord
from detection.index import MAX_DOCUMENT_ID, MAX_SENTENCES, MAX_SIZE, unpack_refs
from documents import services as document_services
from documents.index.store import IndexVersionError, PostgresSentenceIndex
from documents.models import Document

pytestmark = pytest.mark.django_db

V1 = "model-v1"


@pytest.fixture
def collection(owner):
    return document_services.collection_create(owner=owner, name="c")


def make_document(collection, *sentences, version=V1, id=None):
    """A document row with its sentence spans; sentence i spans [10 i, 10 i + 5)."""
    records = tuple(
        SentenceRecord(index=i, start=10 * i, end=10 * i + 5, features=tuple(sorted(f)))
        for i, f in enumerate(sentences)
    )
    document = Document.objects.create(
        id=id, collection=collection, filename="f.txt", checksum="0" * 64, model_version=version,
        sentence_starts=[r.start for r in records], sentence_ends=[r.end for r in records],
    )  # fmt: skip
    return document, DocumentAnalysis(language="zh", model_version=version, sentences=records)


def df_of(feature):
    with connection.cursor() as cursor:
        cursor.execute("SELECT df FROM documents_feature_df WHERE feature = %s", [feature])
        row = cursor.fetchone()
    return None if row is None else row[0]


@pytest.fixture
def every_feature_heavy(monkeypatch):
    """Lookups record the df of every feature they fetch (the floor is 50 documents)."""
    from documents.index import store as pg_index

    monkeypatch.setattr(pg_index, "HEAVY_FLOOR", 0)


def learn(index, features):
    """A lookup of `features`: it records their df (with `every_feature_heavy`)."""
    index.postings(set(features), max_df=1_000)


def posting_count(document_id):
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM documents_posting WHERE ref >> 32 = %s", [document_id])
        return cursor.fetchone()[0]


def test_it_returns_the_postings_it_loaded(collection):
    document, analysis = make_document(collection, {1, 2, 3}, {3, 4})
    index = PostgresSentenceIndex(model_version=V1)
    assert index.add(document.id, analysis) == 5
    found = set(index.postings({1, 3, 99}, max_df=None))
    assert found == {
        Posting(1, document.id, 0, 3),
        Posting(3, document.id, 0, 3),
        Posting(3, document.id, 1, 2),
    }


def test_it_keeps_signed_64_bit_features(collection):
    extremes = {-(2**63), 2**63 - 1}
    document, analysis = make_document(collection, extremes)
    index = PostgresSentenceIndex(model_version=V1)
    index.add(document.id, analysis)
    assert {feature for feature, *_ in index.postings(extremes, max_df=1)} == extremes


def test_lookups_count_document_frequency_once_per_document(collection, every_feature_heavy):
    first, first_analysis = make_document(collection, {7, 8}, {7})
    second, second_analysis = make_document(collection, {7})
    index = PostgresSentenceIndex(model_version=V1)
    index.add_many([(first.id, first_analysis), (second.id, second_analysis)])
    assert (df_of(7), df_of(8)) == (None, None)  # nothing is counted at ingest
    learn(index, {7, 8})
    assert df_of(7) == 2
    assert df_of(8) == 1


def test_only_features_above_the_floor_are_recorded(collection):
    index = PostgresSentenceIndex(model_version=V1)
    for k in range(52):
        document, analysis = make_document(collection, {1} | ({2} if k < 50 else set()))
        index.add(document.id, analysis)
    assert {feature for feature, *_ in index.postings({1, 2}, max_df=100)} == {1, 2}
    assert (df_of(1), df_of(2)) == (52, None)  # the floor: more than 50 documents


def test_it_skips_features_more_common_than_max_df(collection):
    first, first_analysis = make_document(collection, {7, 8})
    second, second_analysis = make_document(collection, {7})
    index = PostgresSentenceIndex(model_version=V1)
    index.add(first.id, first_analysis)
    index.add(second.id, second_analysis)
    assert {feature for feature, *_ in index.postings({7, 8}, max_df=1)} == {8}
    assert {feature for feature, *_ in index.postings({7, 8}, max_df=2)} == {7, 8}


def test_remove_deletes_postings_and_decrements_df(collection, every_feature_heavy):
    first, first_analysis = make_document(collection, {7, 8})
    second, second_analysis = make_document(collection, {7})
    index = PostgresSentenceIndex(model_version=V1)
    index.add(first.id, first_analysis)
    index.add(second.id, second_analysis)
    learn(index, {7, 8})
    index.remove(first.id)
    assert posting_count(first.id) == 0
    assert df_of(7) == 1
    assert df_of(8) is None
    assert list(index.postings({7, 8}, max_df=None)) == [Posting(7, second.id, 0, 1)]
    first.refresh_from_db()
    assert first.indexed is False


def test_removing_and_adding_again_leaves_the_same_state(collection):
    document, analysis = make_document(collection, {1, 2}, {2, 3})
    index = PostgresSentenceIndex(model_version=V1)
    index.add(document.id, analysis)
    before = sorted(index.postings({1, 2, 3}, max_df=None))
    index.remove(document.id)
    index.add(document.id, analysis)
    assert sorted(index.postings({1, 2, 3}, max_df=None)) == before


def test_a_scoped_index_only_sees_its_documents(collection):
    inside, inside_analysis = make_document(collection, {5})
    outside, outside_analysis = make_document(collection, {5})
    PostgresSentenceIndex(model_version=V1).add_many(
        [(inside.id, inside_analysis), (outside.id, outside_analysis)]
    )
    scoped = PostgresSentenceIndex(model_version=V1, documents=[inside.id])
    assert {document for _, document, *_ in scoped.postings({5}, max_df=None)} == {inside.id}


def test_it_refuses_an_analysis_of_another_model_version(collection):
    document, analysis = make_document(collection, {1}, version="model-v2")
    with pytest.raises(IndexVersionError, match="model-v2"):
        PostgresSentenceIndex(model_version=V1).add(document.id, analysis)
    assert posting_count(document.id) == 0


def test_it_never_returns_documents_of_another_version(collection):
    old, old_analysis = make_document(collection, {1}, version="model-v0")
    new, new_analysis = make_document(collection, {1})
    PostgresSentenceIndex(model_version="model-v0").add(old.id, old_analysis)
    PostgresSentenceIndex(model_version=V1).add(new.id, new_analysis)
    for scope in (None, [old.id, new.id]):
        index = PostgresSentenceIndex(model_version=V1, documents=scope)
        assert {document for _, document, *_ in index.postings({1}, max_df=None)} == {new.id}


def test_document_count_counts_indexed_documents_of_its_version(collection):
    index = PostgresSentenceIndex(model_version=V1)
    for _ in range(3):
        document, analysis = make_document(collection, {1})
        index.add(document.id, analysis)
    other, other_analysis = make_document(collection, {1}, version="model-v0")
    PostgresSentenceIndex(model_version="model-v0").add(other.id, other_analysis)
    index.remove(document.id)
    assert index.document_count() == 2


def test_spans_come_from_the_stored_sentences(collection):
    document, analysis = make_document(collection, {1}, {2}, {3})
    index = PostgresSentenceIndex(model_version=V1)
    assert index.spans({document.id: {0, 2, 9, -1}, 10**9: {0}}) == {
        document.id: {0: (0, 5), 2: (20, 25)}
    }


def test_the_posting_table_is_hash_partitioned_by_feature():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_partkeydef('documents_posting'::regclass),"
            " (SELECT count(*) FROM pg_inherits WHERE inhparent = 'documents_posting'::regclass)"
        )
        partition_key, partitions = cursor.fetchone()
    assert partition_key == "HASH (feature)"
    assert partitions == 8


def test_detection_through_postgres_equals_detection_through_memory(collection):
    from detection import DEFAULT_CONFIG, MemoryIndex, analyze, detect
    from detection.scoring import match_query
    from tests.documents.factories import read_fixture

    names = ("zh_source.txt", "zh_suspicious.txt", "zh_unrelated.txt")
    analyses = {}
    for name in names:
        text = read_fixture(name)
        analysis = analyze(text)
        document = Document.objects.create(
            collection=collection, filename=name, checksum="0" * 64, text=text,
            sentence_starts=[s.start for s in analysis.sentences],
            sentence_ends=[s.end for s in analysis.sentences],
        )  # fmt: skip
        analyses[document.id] = analysis
    version = next(iter(analyses.values())).model_version
    postgres = PostgresSentenceIndex(model_version=version)
    memory = MemoryIndex()
    for document_id, analysis in analyses.items():
        postgres.add(document_id, analysis)
        memory.add(document_id, analysis)
    found_any = False
    for document_id, analysis in analyses.items():
        expected = detect(analysis, memory, exclude={document_id})
        assert detect(analysis, postgres, exclude={document_id}) == expected
        found_any = found_any or bool(expected)
        # the feature candidates' counts and idf weights too
        mine = {"exclude": {document_id}, "config": DEFAULT_CONFIG}
        assert match_query(analysis, postgres, **mine) == match_query(analysis, memory, **mine)
    assert found_any


def test_deleting_documents_in_any_way_removes_their_postings(owner, every_feature_heavy):
    doomed = document_services.collection_create(owner=owner, name="doomed")
    kept = document_services.collection_create(owner=owner, name="kept")
    first, first_analysis = make_document(doomed, {7, 8})
    second, second_analysis = make_document(doomed, {7})
    third, third_analysis = make_document(kept, {7})
    index = PostgresSentenceIndex(model_version=V1)
    index.add_many(
        [
            (d.id, a)
            for d, a in [
                (first, first_analysis),
                (second, second_analysis),
                (third, third_analysis),
            ]
        ]
    )
    learn(index, {7, 8})
    assert (df_of(7), df_of(8)) == (3, 1)
    doomed.delete()  # a cascade, as the admin would do it
    assert posting_count(first.id) == posting_count(second.id) == 0
    assert (df_of(7), df_of(8)) == (1, None)
    assert list(index.postings({7, 8}, max_df=None)) == [Posting(7, third.id, 0, 1)]


def test_an_index_scoped_to_collections_only_sees_their_documents(owner):
    inside = document_services.collection_create(owner=owner, name="in")
    outside = document_services.collection_create(owner=owner, name="out")
    seen, seen_analysis = make_document(inside, {5})
    hidden, hidden_analysis = make_document(outside, {5})
    old, old_analysis = make_document(inside, {5}, version="model-v0")
    PostgresSentenceIndex(model_version=V1).add_many(
        [(seen.id, seen_analysis), (hidden.id, hidden_analysis)]
    )
    PostgresSentenceIndex(model_version="model-v0").add(old.id, old_analysis)
    scoped = PostgresSentenceIndex(model_version=V1, collections=[inside.id])
    assert {document for _, document, *_ in scoped.postings({5}, max_df=None)} == {seen.id}
    assert {document for _, document, *_ in scoped.postings({5}, max_df=5)} == {seen.id}


def test_a_lookup_in_the_loading_transaction_counts_df_once_per_document(
    collection, every_feature_heavy
):
    from django.db import transaction

    first, first_analysis = make_document(collection, {7, 8}, {7, 9})
    second, second_analysis = make_document(collection, {7}, {7})
    index = PostgresSentenceIndex(model_version=V1)
    with transaction.atomic():
        index.add(first.id, first_analysis)
        index.add(second.id, second_analysis)
        learn(index, {7, 8, 9})
    assert (df_of(7), df_of(8), df_of(9)) == (2, 1, 1)
    assert posting_count(first.id) == 4 and posting_count(second.id) == 2


def test_postings_keep_sentence_numbers_and_cap_sizes_at_the_reference_field(collection):
    features = set(range(1, 5_001))
    document, analysis = make_document(collection, {5}, features)
    index = PostgresSentenceIndex(model_version=V1)
    assert index.add(document.id, analysis) == 5_001
    found = index.postings({5, 5_000}, max_df=None)
    assert sorted(found) == [Posting(5, document.id, 0, 1), Posting(5, document.id, 1, MAX_SIZE),
                             Posting(5_000, document.id, 1, MAX_SIZE)]  # fmt: skip
    assert found.features.dtype == found.refs.dtype == np.int64  # decoded, not text


def test_a_document_with_more_sentences_than_a_reference_holds_is_refused(collection):
    document, _ = make_document(collection, {5})
    records = tuple(SentenceRecord(n, n, n + 1, (n + 1,)) for n in range(MAX_SENTENCES + 1))
    analysis = DocumentAnalysis("en", V1, records)
    with pytest.raises(DetectionError, match="sentences cannot be indexed"):
        PostgresSentenceIndex(model_version=V1).add(document.id, analysis)
    assert posting_count(document.id) == 0


def test_postings_carry_the_id_of_their_feature_model(collection):
    old, old_analysis = make_document(collection, {1}, version="model-v0")
    new, new_analysis = make_document(collection, {1})
    PostgresSentenceIndex(model_version="model-v0").add(old.id, old_analysis)
    PostgresSentenceIndex(model_version=V1).add(new.id, new_analysis)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.ref >> 32, m.model_version FROM documents_posting p"
            " JOIN documents_index_model m ON m.id = p.model ORDER BY 1"
        )
        assert cursor.fetchall() == [(old.id, "model-v0"), (new.id, V1)]
    assert len(PostgresSentenceIndex(model_version="unseen").postings({1}, max_df=None)) == 0


def test_df_increments_count_each_document_once():
    from documents.index.copy import df_increments, posting_columns

    analysis = DocumentAnalysis(
        language="en",
        model_version=V1,
        sentences=(SentenceRecord(0, 0, 1, (3, 9)), SentenceRecord(1, 2, 3, (3,))),
    )
    columns = posting_columns([(10, analysis), (11, analysis)])
    documents, sentences, sizes = unpack_refs(columns.refs)
    assert (documents == columns.documents).all()
    columns_out = (columns.features, documents, sentences, sizes)
    rows = list(zip(*(c.tolist() for c in columns_out), strict=True))
    assert sorted(rows) == [
        (3, 10, 0, 2), (3, 10, 1, 1), (3, 11, 0, 2), (3, 11, 1, 1), (9, 10, 0, 2), (9, 11, 0, 2)
    ]  # fmt: skip
    assert columns.features.tolist() == sorted(columns.features.tolist())  # btree key order
    features, counts = df_increments(columns)
    assert dict(zip(features.tolist(), counts.tolist(), strict=True)) == {3: 2, 9: 2}


def test_vacuum_refuses_to_run_inside_a_transaction():
    from django.db import transaction

    with transaction.atomic(), pytest.raises(RuntimeError):
        PostgresSentenceIndex(model_version=V1).vacuum()


@pytest.fixture
def committed_index(owner):
    """Committed documents (lookups record df in their own transactions and processes re-read
    the list after commits), cleaned up afterwards: the posting, df and counter tables are
    not flushed by Django (the process's heavy list is forgotten by tests/conftest.py)."""
    yield document_services.collection_create(owner=owner, name="committed")
    Document.objects.all().delete()  # the trigger removes postings and lowers df
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM documents_feature_df")
        cursor.execute("DELETE FROM documents_index_model")


@pytest.mark.django_db(transaction=True)
def test_heavy_features_are_learnt_and_never_returned_above_max_df(committed_index, monkeypatch):
    from documents.index import store as pg_index

    monkeypatch.setattr(pg_index, "_HEAVY_CHECK_SECONDS", 0.0)  # see every generation at once
    monkeypatch.setattr(pg_index, "_HEAVY_READ_SPACING", 0.0)
    heavy, climbing, light = 1, 2, 3
    index = PostgresSentenceIndex(model_version=V1)
    for k in range(60):
        features = {heavy} | ({climbing} if k < 48 else set()) | ({light} if k == 0 else set())
        document, analysis = make_document(committed_index, features)
        index.add(document.id, analysis)
    found = {feature for feature, *_ in index.postings({heavy, climbing, light}, max_df=55)}
    assert found == {climbing, light}  # heavy: df 60 > 55, counted in what was fetched
    assert (df_of(heavy), df_of(climbing)) == (60, None)  # learnt: more than 50 documents
    # The process announced what it learnt and, nobody else having announced anything, its
    # list is the new generation's: not read again.
    assert pg_index._HEAVY[index._heavy_key()].generation == generation_now()
    assert index.heavy_features().features.tolist() == [heavy]
    for _ in range(10):  # `climbing` goes from df 48 to 58, past max_df
        document, analysis = make_document(committed_index, {climbing})
        index.add(document.id, analysis)
    found = {feature for feature, *_ in index.postings({heavy, climbing, light}, max_df=55)}
    assert found == {light}
    assert df_of(climbing) == 58
    assert {feature for feature, *_ in index.postings({heavy, climbing}, max_df=100)} == {
        heavy,
        climbing,
    }


@pytest.mark.django_db(transaction=True)
def test_record_heavy_features_counts_documents_not_postings_and_keeps_larger_counts(
    committed_index, monkeypatch
):
    """A bulk load's heavy features recorded before any lookup met them (the import's end)."""
    from documents.index import store as pg_index

    monkeypatch.setattr(pg_index, "_HEAVY_CHECK_SECONDS", 0.0)  # see every generation at once
    monkeypatch.setattr(pg_index, "_HEAVY_READ_SPACING", 0.0)
    heavy, repeated, light, raised = 1, 2, 3, 4
    index = PostgresSentenceIndex(model_version=V1)
    items = []
    for k in range(60):
        # `repeated`: 60 postings in 30 documents (two sentences each): not heavy.
        sentences = [{heavy, raised}, {repeated} if k < 30 else {light}]
        if k < 30:
            sentences.append({repeated})
        items.append(make_document(committed_index, *sentences))
    index.add_many([(d.id, a) for d, a in items])
    with connection.cursor() as cursor:  # an earlier, larger count of `raised` stays
        cursor.execute("INSERT INTO documents_feature_df (feature, df) VALUES (%s, 90)", [raised])
    generation = index.heavy_features().generation
    assert index.record_heavy_features() == 1  # `heavy` added; `raised` counted 60, kept 90
    assert (df_of(heavy), df_of(raised), df_of(repeated), df_of(light)) == (60, 90, None, None)
    assert index.heavy_features().generation > generation  # other processes re-read
    assert {f for f, *_ in index.postings({heavy, repeated, light}, max_df=55)} == {
        repeated,
        light,
    }
    assert index.record_heavy_features() == 0  # nothing grew: no row rewritten


@pytest.mark.django_db(transaction=True)
def test_a_recount_that_finds_no_growth_writes_nothing(committed_index, monkeypatch):
    """A feature with three postings per document always has "more than twice its recorded
    df" in postings: each lookup that meets it counts it again, and only a grown count may be
    written (a write would also make every other process re-read its heavy list)."""
    from documents.index import store as pg_index

    monkeypatch.setattr(pg_index, "_HEAVY_CHECK_SECONDS", 0.0)  # see every generation at once
    monkeypatch.setattr(pg_index, "_HEAVY_READ_SPACING", 0.0)
    repeated = 11
    index = PostgresSentenceIndex(model_version=V1)
    items = [make_document(committed_index, {repeated}, {repeated}, {repeated}) for _ in range(60)]
    index.add_many([(d.id, a) for d, a in items])
    assert index.record_heavy_features() == 1 and df_of(repeated) == 60
    generation = index.heavy_features().generation
    written = []
    original = pg_index.PostgresSentenceIndex._bump_generation
    monkeypatch.setattr(
        pg_index.PostgresSentenceIndex,
        "_bump_generation",
        lambda self: written.append(1) or original(self),
    )
    for _ in range(2):  # 180 postings > 2 x 60 and > the guard: counted again, df still 60
        assert len(index.postings({repeated}, max_df=100)) == 180
    assert written == [] and generation_now() == generation and df_of(repeated) == 60
    more = [make_document(committed_index, {repeated}) for _ in range(5)]
    index.add_many([(d.id, a) for d, a in more])
    assert len(index.postings({repeated}, max_df=100)) == 185  # grown: 65 documents
    assert written == [1] and df_of(repeated) == 65


@pytest.mark.django_db(transaction=True)
def test_after_recording_the_process_reads_what_it_recorded(committed_index, monkeypatch):
    """A bulk import ends with `record_heavy_features` in a process that had read its heavy
    list before: its next lookup must use the recorded counts (a feature too common is not
    fetched), not take its old list as current and count and write the feature again."""
    from documents.index import store as pg_index

    common, rare = 21, 22
    index = PostgresSentenceIndex(model_version=V1)
    items = [make_document(committed_index, {common, rare})]
    items += [make_document(committed_index, {common}) for _ in range(59)]
    index.add_many([(d.id, a) for d, a in items])
    assert index.heavy_features().features.tolist() == []  # read now: good for a second
    assert index.record_heavy_features() == 1 and df_of(common) == 60
    written = []
    original = pg_index.PostgresSentenceIndex._bump_generation
    monkeypatch.setattr(
        pg_index.PostgresSentenceIndex,
        "_bump_generation",
        lambda self, **kwargs: written.append(1) or original(self, **kwargs),
    )
    assert {feature for feature, *_ in index.postings({common, rare}, max_df=55)} == {rare}
    assert index.heavy_features().features.tolist() == [common]  # read again: 60 > 55 listed
    assert written == []  # nothing counted or written again


@pytest.mark.django_db(transaction=True)
def test_a_reread_list_keeps_what_this_process_counted_under_the_floor(
    committed_index, monkeypatch
):
    """A feature with many postings in few documents (a phrase repeated inside documents) is
    counted in memory once and listed with its count, never stored. When another process
    records something, the list is read again: the count must survive the re-read, or every
    lookup meeting the feature counts it again (after each load: ~14 of the benchmark's 200
    lookups)."""
    from documents.index import store as pg_index

    monkeypatch.setattr(pg_index, "_HEAVY_CHECK_SECONDS", 0.0)  # see every generation at once
    monkeypatch.setattr(pg_index, "_HEAVY_READ_SPACING", 0.0)
    repeated, common = 31, 32
    index = PostgresSentenceIndex(model_version=V1)
    items = [make_document(committed_index, *[{repeated}] * 30) for _ in range(2)]
    items += [make_document(committed_index, {common}) for _ in range(60)]
    index.add_many([(d.id, a) for d, a in items])
    counted = []
    original = pg_index._document_counts
    monkeypatch.setattr(
        pg_index, "_document_counts", lambda *args: counted.append(1) or original(*args)
    )
    assert len(index.postings({repeated}, max_df=100)) == 60  # 60 postings in 2 documents
    assert counted == [1] and df_of(repeated) is None
    assert index.record_heavy_features() == 1 and df_of(common) == 60  # the generation moves
    assert len(index.postings({repeated}, max_df=100)) == 60
    assert index.heavy_features().recorded(np.array([repeated, common])).tolist() == [2, 60]
    assert counted == [1]  # not counted again after the re-read


@pytest.mark.django_db(transaction=True)
def test_recording_after_a_small_load_counts_only_that_loads_features(committed_index):
    shared, old_only, new_only = 5, 6, 7
    index = PostgresSentenceIndex(model_version=V1)
    old = [make_document(committed_index, {shared, old_only}) for _ in range(60)]
    index.add_many([(d.id, a) for d, a in old])
    new = [make_document(committed_index, {shared, new_only}) for _ in range(2)]
    index.add_many([(d.id, a) for d, a in new])
    # 2 of 62 documents: only the features of the two are counted (found by their refs).
    assert index.record_heavy_features([d.id for d, _ in new]) == 1
    assert (df_of(shared), df_of(old_only), df_of(new_only)) == (62, None, None)
    assert index.record_heavy_features() == 1  # the whole index: `old_only` too
    assert df_of(old_only) == 60


def test_runs_of_consecutive_ids():
    from documents.index.store import _runs

    firsts, lasts = _runs(np.array([3, 4, 5, 9, 11, 12], np.int64))
    assert (firsts.tolist(), lasts.tolist()) == ([3, 9, 11], [5, 9, 12])
    assert [a.tolist() for a in _runs(np.array([7], np.int64))] == [[7], [7]]


@pytest.mark.django_db(transaction=True)
def test_a_recorded_df_above_the_limit_keeps_a_feature_from_being_fetched(committed_index):
    listed, other = 1, 2
    index = PostgresSentenceIndex(model_version=V1)
    document, analysis = make_document(committed_index, {listed, other})
    index.add(document.id, analysis)
    with connection.cursor() as cursor:  # as if 500 documents had held it at the last count
        cursor.execute("INSERT INTO documents_feature_df (feature, df) VALUES (%s, 500)", [listed])
        cursor.execute("SELECT nextval('documents_heavy_generation')")
    assert {feature for feature, *_ in index.postings({listed, other}, max_df=499)} == {other}
    assert {feature for feature, *_ in index.postings({listed, other}, max_df=500)} == {
        listed,
        other,
    }
    with connection.cursor() as cursor:  # dropped from the table: fetched again at once
        cursor.execute("DELETE FROM documents_feature_df")
    assert {feature for feature, *_ in index.postings({listed, other}, max_df=499)} == {
        listed,
        other,
    }


@pytest.mark.django_db(transaction=True)
def test_a_scoped_lookup_learns_from_documents_outside_its_scope(committed_index, owner):
    mine = document_services.collection_create(owner=owner, name="mine")
    index = PostgresSentenceIndex(model_version=V1)
    for _ in range(51):
        document, analysis = make_document(committed_index, {9})
        index.add(document.id, analysis)
    own, own_analysis = make_document(mine, {9})
    index.add(own.id, own_analysis)
    scoped = PostgresSentenceIndex(model_version=V1, collections=[mine.id])
    assert {document for _, document, *_ in scoped.postings({9}, max_df=50)} == {own.id}
    assert df_of(9) == 52  # counted over every document, not only the scope's


@pytest.mark.django_db(transaction=True)
def test_document_count_follows_every_way_documents_come_and_go(committed_index):
    index = PostgresSentenceIndex(model_version=V1)
    other = PostgresSentenceIndex(model_version="other-model")
    made = [make_document(committed_index, {k}) for k in range(4)]
    documents = [document for document, _ in made]
    assert index.document_count() == 0
    index.add_many([(document.id, analysis) for document, analysis in made[:3]])
    assert (index.document_count(), other.document_count()) == (3, 0)
    index.remove(documents[0].id)  # re-indexing starts with a removal
    assert index.document_count() == 2
    index.compact_document_count()  # the appended changes folded into one row per model
    with connection.cursor() as cursor:
        cursor.execute("SELECT model_version, n FROM documents_index_documents")
        assert cursor.fetchall() == [(V1, 2)]
    assert index.document_count() == 2
    Document.objects.filter(id=documents[1].id).update(model_version="other-model")  # raw change
    assert (index.document_count(), other.document_count()) == (1, 1)
    Document.objects.filter(id__in=[d.id for d in documents]).delete()
    assert (index.document_count(), other.document_count()) == (0, 0)
    with connection.cursor() as cursor:  # what the counter replaced
        cursor.execute("SELECT count(*) FROM documents_document WHERE indexed")
        assert cursor.fetchone()[0] == 0


def test_removal_at_the_ends_of_the_document_id_range_touches_only_that_document(
    collection, every_feature_heavy
):
    """A document is its range of refs; bigint shifts wrap silently, so an id past the field
    must not name another document's range, and the largest id's range must not wrap."""
    small, small_analysis = make_document(collection, {11, 12}, id=7)
    largest, largest_analysis = make_document(collection, {11, 13}, id=MAX_DOCUMENT_ID)
    index = PostgresSentenceIndex(model_version=V1)
    index.add_many([(small.id, small_analysis), (largest.id, largest_analysis)])
    learn(index, {11, 12, 13})
    index.remove_many([(1 << 32) + 7, -1])  # cannot be indexed: nothing to remove
    assert posting_count(small.id) == 2 and posting_count(largest.id) == 2
    beyond, _ = make_document(collection, {11}, id=(1 << 32) + 7)
    beyond.delete()  # the delete trigger, with the same id
    assert posting_count(small.id) == 2
    index.remove(largest.id)
    assert posting_count(largest.id) == 0 and posting_count(small.id) == 2
    assert (df_of(11), df_of(12), df_of(13)) == (1, 1, None)
    largest.delete()
    small.delete()
    assert posting_count(small.id) == 0 and df_of(11) is None


def prepared_statements():
    """Statement texts prepared on this connection, with how often each was executed."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        return dict(cursor.fetchall())


def test_the_lookup_is_a_prepared_statement_and_nothing_else_is(collection):
    document, analysis = make_document(collection, {1, 2}, {3})
    index = PostgresSentenceIndex(model_version=V1)
    index.add(document.id, analysis)
    assert connection.connection.prepare_threshold is None  # Django's default: prepare nothing
    for features in ({1}, {2, 3}, {1, 2, 3, 99}):
        assert {f for f, *_ in index.postings(features, max_df=None)} == features - {99}
    for _ in range(6):
        Document.objects.filter(id=document.id).count()
    executions = [n for text, n in prepared_statements().items() if "documents_posting" in text]
    assert executions == [3]  # the same statement for every feature list, planned once
    assert len(prepared_statements()) == 1  # the ORM's queries were not prepared
    assert connection.connection.prepare_threshold is None  # lifted for the lookup alone


def test_database_options_that_set_prepare_threshold_are_obeyed(collection, monkeypatch):
    document, analysis = make_document(collection, {1})
    index = PostgresSentenceIndex(model_version=V1)
    index.add(document.id, analysis)
    monkeypatch.setitem(connection.settings_dict, "OPTIONS", {"prepare_threshold": None})
    assert len(index.postings({1}, max_df=None)) == 1
    assert prepared_statements() == {}  # e.g. behind PgBouncer in transaction mode


def test_a_failed_lookup_leaves_the_threshold_and_the_next_lookup_works(collection, monkeypatch):
    from django.db import DatabaseError, transaction

    from documents.index import lookup as pg_lookup

    document, analysis = make_document(collection, {1})
    index = PostgresSentenceIndex(model_version=V1)
    index.add(document.id, analysis)
    with monkeypatch.context() as broken:
        broken.setattr(pg_lookup, "_POSTINGS", "no_such_column")
        with pytest.raises(DatabaseError), transaction.atomic():
            index.postings({1}, max_df=None)
    assert connection.connection.prepare_threshold is None
    assert len(index.postings({1}, max_df=None)) == 1


def test_scoped_lookups_are_right_under_the_generic_plan(collection):
    """Prepared, a lookup runs PostgreSQL's generic plan after five executions; forced here."""
    documents = [make_document(collection, {7, 8}, {9}) for _ in range(4)]
    PostgresSentenceIndex(model_version=V1).add_many([(d.id, a) for d, a in documents])
    with connection.cursor() as cursor:
        cursor.execute("SET plan_cache_mode = force_generic_plan")
    inside = sorted(d.id for d, _ in documents[1:3])
    scoped = PostgresSentenceIndex(model_version=V1, documents=inside)
    for _ in range(3):
        found = scoped.postings({7, 9}, max_df=None)
        assert sorted({document for _, document, *_ in found}) == inside
        assert sorted(feature for feature, *_ in found) == [7, 7, 9, 9]
    assert [n for text, n in prepared_statements().items() if "unnest" in text] == [3]


def generation_now() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT last_value FROM documents_heavy_generation")
        return cursor.fetchone()[0]


def record_heavy(*rows):
    """Rows of the df table as lookups would have recorded them, and a new generation."""
    with connection.cursor() as cursor:
        for feature, df in rows:
            cursor.execute(
                "INSERT INTO documents_feature_df (feature, df) VALUES (%s, %s)", [feature, df]
            )
        cursor.execute("SELECT nextval('documents_heavy_generation')")


@pytest.mark.django_db(transaction=True)
def test_a_process_takes_its_own_bump_only_when_nobody_else_announced(committed_index):
    from documents.index import store as pg_index

    index = PostgresSentenceIndex(model_version=V1)
    record_heavy((1, 60))
    key = index._heavy_key()
    index.heavy_features()
    index._bump_generation()  # as after its own lookup recorded something
    assert pg_index._HEAVY[key].generation == generation_now()  # its list is current
    record_heavy((2, 70))  # another process announces
    index._bump_generation()
    assert pg_index._HEAVY[key].generation == generation_now() - 2  # behind: read when due
    assert pg_index._HEAVY[key].features.tolist() == [1]


@pytest.mark.django_db(transaction=True)
def test_a_slow_read_of_the_heavy_list_spaces_out_the_next_ones(committed_index, monkeypatch):
    """A process re-reads the whole list whenever another one learnt something: with hundreds
    of thousands of recorded features that would take most of its time, so it waits
    `_HEAVY_READ_SPACING` times its last read before looking at the generation again."""
    from dataclasses import replace

    from documents.index import store as pg_index

    monkeypatch.setattr(pg_index, "_HEAVY_CHECK_SECONDS", 0.0)
    monkeypatch.setattr(pg_index, "_HEAVY_READ_SPACING", 1e9)  # any real read: a long wait
    index = PostgresSentenceIndex(model_version=V1)
    record_heavy((1, 60))
    first = index.heavy_features()
    assert first.features.tolist() == [1] and first.spacing > 1.0
    record_heavy((2, 70), (-5, 80))
    assert index.heavy_features() is first  # not looked at again yet
    key = index._heavy_key()
    monkeypatch.setitem(pg_index._HEAVY, key, replace(first, spacing=0.0))
    listed = index.heavy_features()
    assert listed.features.tolist() == [-5, 1, 2]  # sorted, each with its own df
    assert listed.dfs.tolist() == [80, 60, 70]
    assert listed.features.dtype == np.int64 and listed.dfs.dtype == np.int64


@pytest.mark.django_db(transaction=True)
def test_a_lookup_tells_whether_the_heavy_list_is_current(committed_index, monkeypatch):
    """Every lookup returns the df table's generation: one that matches the process's list
    counts as the look `heavy_features` would otherwise make with a round trip of its own; a
    moved one does not, so the list is re-read when that look is due."""
    from dataclasses import replace

    from documents.index import store as pg_index

    index = PostgresSentenceIndex(model_version=V1)
    document, analysis = make_document(committed_index, {1, 3})
    index.add(document.id, analysis)
    record_heavy((1, 60))
    key = index._heavy_key()
    listed = index.heavy_features()
    before = time.monotonic()
    # Looked at long ago, and not due again for a long while: the lookup uses the list as it is.
    monkeypatch.setitem(pg_index._HEAVY, key, replace(listed, checked=before - 100, spacing=1e6))
    assert {f for f, *_ in index.postings({1, 3}, max_df=55)} == {3}
    assert pg_index._HEAVY[key].checked >= before  # the lookup saw the list's generation
    record_heavy((3, 70))  # another process learnt something: the generation moves
    seen = pg_index._HEAVY[key].checked
    assert {f for f, *_ in index.postings({1, 3}, max_df=55)} == {3}  # stale: 3 still fetched
    assert pg_index._HEAVY[key].checked == seen  # a moved generation is no look
    monkeypatch.setitem(pg_index._HEAVY, key, replace(pg_index._HEAVY[key], spacing=0.0))
    assert index.heavy_features().features.tolist() == [1, 3]  # due: looked at and re-read
    assert {f for f, *_ in index.postings({1, 3}, max_df=55)} == set()


def test_removing_more_holders_than_a_recorded_df_counted_drops_the_row(collection):
    """A recorded df is a lower bound: lookups count a feature once it is heavy and skip it
    afterwards, while documents holding it keep coming. Removing more of them than the count
    said must not fail (the table forbids a negative df), and must not leave a df above the
    true one."""
    documents = [make_document(collection, {21, 22}) for _ in range(5)]
    index = PostgresSentenceIndex(model_version=V1)
    index.add_many([(d.id, a) for d, a in documents])
    record_heavy((21, 3), (22, 60))  # counted when fewer held them, or later and more
    Document.objects.filter(id__in=[d.id for d, _ in documents[:4]]).delete()  # the trigger
    assert df_of(21) is None  # 3 - 4: nothing known any more; a lookup counts it again
    assert df_of(22) == 56
    index.remove_many([documents[4][0].id])
    assert (df_of(21), df_of(22)) == (None, 55)
    assert posting_count(documents[4][0].id) == 0


def test_removing_runs_of_consecutive_documents_removes_exactly_them(collection):
    """Consecutive ids are removed as one ref range per run (one BRIN scan for a whole
    collection loaded at once), scattered ones each by its own."""
    documents = [make_document(collection, {31, 32 + k % 3}) for k in range(12)]
    index = PostgresSentenceIndex(model_version=V1)
    index.add_many([(d.id, a) for d, a in documents])
    ids = [d.id for d, _ in documents]
    gone = ids[1:5] + ids[6:7] + ids[8:11]  # runs of 4, 1 and 3; ids[5], [7], [11] stay
    record_heavy((31, 60))
    index.remove_many([*gone, ids[9], 10**12])  # repeated, and an id beyond the field
    assert [posting_count(i) for i in ids] == [0 if i in gone else 2 for i in ids]
    assert df_of(31) == 60 - len(gone)
    remaining = {document for _, document, *_ in index.postings({31}, max_df=None)}
    assert remaining == set(ids) - set(gone)


def test_removing_many_scattered_documents_removes_exactly_them(collection):
    """More runs than MAX_RUNS of migration 0020 take the previous statement (one join over
    the ids)."""
    from importlib import import_module

    max_runs = import_module("documents.migrations.0020_forget_documents_by_runs").MAX_RUNS
    documents = [make_document(collection, {41, 42 + k % 2}) for k in range(2 * max_runs + 10)]
    index = PostgresSentenceIndex(model_version=V1)
    index.add_many([(d.id, a) for d, a in documents])
    ids = [d.id for d, _ in documents]
    gone = ids[::2]  # every other one: as many runs as documents
    record_heavy((41, 5_000))
    Document.objects.filter(id__in=gone).delete()  # the trigger
    assert len(gone) > max_runs
    assert sum(posting_count(i) for i in gone) == 0
    assert all(posting_count(i) == 2 for i in ids[1::2])
    assert df_of(41) == 5_000 - len(gone)


def test_term_postings_through_postgres_equal_those_in_memory_and_go_with_the_document(owner):
    from detection import MemoryIndex, analyze
    from detection.config import TERM_RETRIEVAL_CONFIG as CONFIG
    from detection.detector import query_units
    from detection.lexicon import term_id
    from detection.retrieval import term_candidates
    from tests.detection.paraphrase import PARAPHRASE, SOURCE, UNRELATED

    inside = document_services.collection_create(owner=owner, name="in")
    outside = document_services.collection_create(owner=owner, name="out")
    analyses = {}
    for collection, text in ((inside, SOURCE), (inside, UNRELATED), (outside, SOURCE)):
        analysis = analyze(text, CONFIG)
        document = Document.objects.create(
            collection=collection, filename="f.txt", checksum="0" * 64, text=text,
            model_version=analysis.model_version,
        )  # fmt: skip
        analyses[document.id] = analysis
    version = next(iter(analyses.values())).model_version
    postgres, memory = PostgresSentenceIndex(model_version=version), MemoryIndex()
    written = postgres.add_many(analyses.items())
    for document, analysis in analyses.items():
        memory.add(document, analysis)
    features = sum(len(s.features) for a in analyses.values() for s in a.sentences)
    assert written == features + sum(len(a.terms) for a in analyses.values())

    asked = [t for a in analyses.values() for t, _ in a.terms]
    assert set(postgres.term_postings(asked, max_df=None)) == set(
        memory.term_postings(asked, max_df=None)
    )
    units = query_units(PARAPHRASE, CONFIG)
    source_ids = [d for d in analyses if analyses[d].terms == analyze(SOURCE, CONFIG).terms]
    assert term_candidates(units, postgres, exclude=(), config=CONFIG) == set(source_ids)
    scoped = PostgresSentenceIndex(model_version=version, collections=[inside.id])
    assert term_candidates(units, scoped, exclude=(), config=CONFIG) == {source_ids[0]}
    assert len(scoped.too_common) == 0  # the note on common wording is about sentences only

    Document.objects.filter(id=source_ids[0]).delete()
    glacier = term_id("glacier")
    assert {p.document for p in postgres.term_postings([glacier], max_df=None)} == {source_ids[1]}
