"""A lookup split over partition groups on several connections (documents/pg_fanout.py)."""

import threading

import numpy as np
import pytest
from django.db import OperationalError, connection

from documents import pg_fanout
from documents.pg_index import PostgresSentenceIndex
from documents.pg_lookup import POSTING_PARTITIONS, lookup_statements
from documents.pg_partition import partition_of
from tests.documents.test_pg_index import V1, committed_index, make_document, record_heavy

__all__ = ["committed_index"]  # a fixture, used by name


@pytest.fixture
def spread_small_lookups(monkeypatch):
    """Lookups of any size are spread (normally only those of 256 features or more)."""
    monkeypatch.setattr(pg_fanout, "FANOUT_MIN_FEATURES", 1)


@pytest.fixture
def threads_of_lookups(monkeypatch):
    """The names of the threads each lookup statement ran in, in order."""
    names: list[str] = []
    run = PostgresSentenceIndex._run_lookup

    def recorded(self, sql, params):
        names.append(threading.current_thread().name)
        return run(self, sql, params)

    monkeypatch.setattr(PostgresSentenceIndex, "_run_lookup", recorded)
    return names


def as_rows(found):
    return sorted(zip(found.features.tolist(), found.refs.tolist(), strict=True))


def test_groups_split_the_partitions_and_their_features_between_them():
    features = np.arange(-500, 500, dtype=np.int64) * 7919
    partitions = partition_of(np.unique(features), POSTING_PARTITIONS)
    ((single_sql, single),) = lookup_statements(features, version=V1, guard=None, heavy=None)
    statements = lookup_statements(features, version=V1, guard=None, heavy=None, groups=3)
    assert len(statements) == 3
    routed = {}
    for group, (sql, params) in enumerate(statements):
        mine = [r for r in range(POSTING_PARTITIONS) if r % 3 == group]
        assert [r for r in range(POSTING_PARTITIONS) if f"_p{r} " in sql] == mine
        assert sorted(key for key in params if key != "version") == [f"p{r}" for r in mine]
        routed.update({key: params[key].values.tolist() for key in params if key != "version"})
    assert routed == {f"p{r}": single[f"p{r}"].values.tolist() for r in range(8)}
    assert all(f"_p{r} " in single_sql for r in range(8))
    assert sorted(v for values in routed.values() for v in values) == np.unique(features).tolist()
    assert len(set(partitions.tolist())) == POSTING_PARTITIONS  # every group had features


def test_a_group_without_features_sends_no_statement():
    feature = np.array([12345], np.int64)
    statements = lookup_statements(feature, version=V1, guard=None, heavy=None, groups=4)
    assert len(statements) == 1
    r = int(partition_of(feature, POSTING_PARTITIONS)[0])
    assert statements[0][1][f"p{r}"].values.tolist() == [12345]


@pytest.mark.django_db(transaction=True)
def test_a_spread_lookup_returns_what_one_connection_returns(
    committed_index, owner, spread_small_lookups, threads_of_lookups
):
    from documents.models import Collection

    rng = np.random.default_rng(7)
    other = Collection.objects.create(owner=owner, name="other")
    common = rng.integers(-(2**63), 2**63 - 1, 5, dtype=np.int64).tolist()  # in every document
    documents = []
    index = PostgresSentenceIndex(model_version=V1, lookup_connections=1)
    for k in range(12):
        own = rng.integers(-(2**63), 2**63 - 1, 40, dtype=np.int64).tolist()
        document, analysis = make_document(
            committed_index if k % 2 else other, set(own[:20] + common), set(own[20:])
        )
        index.add(document.id, analysis)
        documents.append((document, own))
    record_heavy((common[0], 500), (common[1], 60))
    assert index.heavy_features().features.size == 2  # this process's list
    with connection.cursor() as cursor:  # common[1] dropped out: fetched after all
        cursor.execute("DELETE FROM documents_feature_df WHERE feature = %s", [common[1]])
    asked = {f for _, own in documents for f in own[::3]} | set(common) | {1, 2, 3}
    inside = sorted(d.id for d, _ in documents[:5])
    scopes = ({}, {"documents": inside}, {"collections": [other.id]})
    for scope, max_df in ((scope, max_df) for scope in scopes for max_df in (20, 4)):
        one = PostgresSentenceIndex(model_version=V1, lookup_connections=1, **scope)
        threads_of_lookups.clear()
        expected = one.postings(asked, max_df=max_df)
        assert threads_of_lookups == [threading.current_thread().name]
        if max_df == 20:
            assert common[1] in expected.features
            assert (common[0] in expected.features) == bool(scope)  # unscoped: not fetched
        elif scope:  # the common features are in more than 4 documents of either scope
            assert sorted(one.too_common.tolist()) == sorted(common)
        for spread in (2, 3, POSTING_PARTITIONS):
            threads_of_lookups.clear()
            index = PostgresSentenceIndex(model_version=V1, lookup_connections=spread, **scope)
            assert as_rows(index.postings(asked, max_df=max_df)) == as_rows(expected)
            assert len(threads_of_lookups) == spread
            assert sum(name.startswith("lookup-lane-") for name in threads_of_lookups) == spread - 1
            assert sorted(index.too_common.tolist()) == sorted(one.too_common.tolist())
            assert index.too_common_holders == one.too_common_holders


def test_a_lookup_inside_a_transaction_stays_on_its_connection(
    owner, spread_small_lookups, threads_of_lookups
):
    """pytest-django runs this test in a transaction: what it indexed is not committed, and a
    lane's connection would not see it."""
    from documents.models import Collection

    collection = Collection.objects.create(owner=owner, name="c")
    document, analysis = make_document(collection, set(range(1, 40)))
    index = PostgresSentenceIndex(model_version=V1, lookup_connections=2)
    index.add(document.id, analysis)
    assert len(index.postings(set(range(1, 40)), max_df=None)) == 39
    assert threads_of_lookups == [threading.current_thread().name]


@pytest.mark.django_db(transaction=True)
def test_a_lane_whose_connection_broke_fails_one_lookup_and_reconnects(
    committed_index, spread_small_lookups
):
    document, analysis = make_document(committed_index, set(range(1, 40)))
    index = PostgresSentenceIndex(model_version=V1, lookup_connections=2)
    index.add(document.id, analysis)
    assert len(index.postings(set(range(1, 40)), max_df=None)) == 39

    def backend_pid():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    _, lane = pg_fanout.lanes(1).run("default", [backend_pid, backend_pid])
    assert lane != backend_pid()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [lane])
    with pytest.raises(OperationalError):
        index.postings(set(range(1, 40)), max_df=None)
    assert len(index.postings(set(range(1, 40)), max_df=None)) == 39  # reconnected


def test_lanes_return_results_in_order_and_raise_after_every_call_finished():
    lanes = pg_fanout.Lanes(2)
    try:
        assert lanes.run("default", [lambda: 1, lambda: 2, lambda: 3]) == [1, 2, 3]
        finished = threading.Event()

        def slow():
            finished.wait(0.2)
            finished.set()
            return "late"

        def failing():
            raise ValueError("first")

        with pytest.raises(ValueError, match="first"):
            lanes.run("default", [failing, slow])
        assert finished.is_set()  # the lane's call was waited for

        def failing_lane():
            raise KeyError("lane")

        with pytest.raises(KeyError, match="lane"):
            lanes.run("default", [lambda: 1, failing_lane])
        with pytest.raises(ValueError, match="3 calls for 1 lanes"):
            pg_fanout.Lanes(1).run("default", [lambda: 1] * 3)
    finally:
        lanes.close()


def test_a_forked_process_makes_its_own_lanes(monkeypatch):
    parent = pg_fanout.lanes(1)
    try:
        monkeypatch.setattr(pg_fanout, "_LANES_PID", -1)  # as if made by another process
        child = pg_fanout.lanes(1)
        assert child is not parent and child.run("default", [lambda: 0, lambda: 1]) == [0, 1]
        assert pg_fanout.lanes(1) is child
    finally:
        parent.close()
        pg_fanout.close_lanes()


@pytest.mark.django_db(transaction=True)
def test_closing_the_lanes_closes_their_connections(committed_index):
    def backend_pid():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    _, lane = pg_fanout.lanes(1).run("default", [backend_pid, backend_pid])
    pg_fanout.close_lanes()
    with connection.cursor() as cursor:
        for _ in range(200):  # the backend exits soon after its client said goodbye
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [lane])
            if cursor.fetchone()[0] == 0:
                break
            cursor.execute("SELECT pg_sleep(0.05)")
        else:
            pytest.fail(f"the lane's backend {lane} is still there")


def test_small_lookups_and_one_connection_are_not_spread():
    assert pg_fanout.lookup_groups(10_000, "default", 1) == 1
    assert pg_fanout.lookup_groups(pg_fanout.FANOUT_MIN_FEATURES - 1, "default", 4) == 1
