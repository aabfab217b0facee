"""How a lookup counts its postings per feature (documents.index.store._counted), without the
database: runs of a grouped result, and any other order."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from documents.index.store import _counted

features = st.lists(st.integers(-(2**63), 2**63 - 1), min_size=0, max_size=40)


def expected(values):
    return np.unique(np.array(values, np.int64), return_counts=True)


@given(st.lists(st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(1, 5)), max_size=30))
def test_grouped_postings_are_counted_by_their_runs(runs):
    distinct = list(dict.fromkeys(feature for feature, _ in runs))  # each feature one run
    sizes = dict(runs)
    grouped = np.array([f for f in distinct for _ in range(sizes[f])], np.int64)
    values, counts = _counted(grouped, 0)
    want_values, want_counts = expected(grouped.tolist())
    assert values.tolist() == want_values.tolist() and counts.tolist() == want_counts.tolist()


@given(features)
def test_postings_in_any_order_are_counted_all_the_same(values):
    got_values, got_counts = _counted(np.array(values, np.int64), 0)
    want_values, want_counts = expected(values)
    assert got_values.tolist() == want_values.tolist()
    assert got_counts.tolist() == want_counts.tolist()


def test_a_feature_split_over_two_runs_is_counted_once():
    values, counts = _counted(np.array([5, 5, 3, 5], np.int64), 0)
    assert values.tolist() == [3, 5] and counts.tolist() == [1, 3]


def test_nothing_is_counted_when_no_feature_can_pass_the_floor():
    values, counts = _counted(np.array([1, 1, 2], np.int64), 3)
    assert len(values) == len(counts) == 0


listed = st.dictionaries(st.integers(-(2**63), 2**63 - 1), st.integers(51, 10**6), max_size=30)


@given(listed, listed)
def test_a_process_heavy_list_merges_what_a_lookup_counted(before, counted):
    """`HeavyFeatures.merged`: counted features are added, or updated with their new count;
    the list stays sorted with each feature's own df (what `recorded` answers)."""
    from documents.index.lookup import HeavyFeatures

    old = np.array(sorted(before), np.int64)
    heavy = HeavyFeatures(1, old, np.array([before[f] for f in old.tolist()], np.int64), 0.0)
    merged = heavy.merged(
        np.array(list(counted), np.int64), np.array(list(counted.values()), np.int64)
    )
    want = {**before, **counted}
    assert merged.features.tolist() == sorted(want)
    assert merged.dfs.tolist() == [want[f] for f in sorted(want)]
    probe = np.array(sorted(want) + [0], np.int64)
    assert merged.recorded(probe).tolist() == [want[f] for f in sorted(want)] + [want.get(0, 0)]


counts = st.dictionaries(st.integers(-(2**63), 2**63 - 1), st.integers(1, 10**6), max_size=30)


@given(counts, counts)
def test_a_reread_list_keeps_only_the_unstored_counts_of_the_old_one(read, earlier):
    """`HeavyFeatures.unstored_from`: the counts of the earlier list at most the floor (50) and
    not in the list read are added; the read list's own counts win (a stored row lowered by
    removals, to at most the floor too); earlier counts above the floor were stored, so the
    table's word is final (lowered, or deleted) and they are not taken."""
    from documents.index.lookup import HeavyFeatures

    def heavy(counts):
        features = np.array(sorted(counts), np.int64)
        dfs = np.array([counts[f] for f in sorted(counts)], np.int64)
        return HeavyFeatures(1, features, dfs, 0.0)

    kept = heavy(read).unstored_from(heavy(earlier), 50)
    want = {**{f: c for f, c in earlier.items() if c <= 50}, **read}
    assert kept.features.tolist() == sorted(want)
    assert kept.dfs.tolist() == [want[f] for f in sorted(want)]


def test_only_features_listed_above_the_guard_are_checked_in_the_df_table():
    """`lookup_statement`: a feature listed at or below the guard is fetched like any other (a
    stale list costs fetching more, and the caller counts what came back); one listed above
    it goes to the single df check with its partition (`kept`); nothing listed above: no
    check at all."""
    from documents.index.lookup import POSTING_PARTITIONS, HeavyFeatures, lookup_statement
    from documents.index.partition import partition_of

    heavy = HeavyFeatures(1, np.array([5, 7], np.int64), np.array([60, 900], np.int64), 0.0)
    sql, params = lookup_statement([3, 5, 7], version="v", guard=100, heavy=heavy)
    assert params["h"].values.tolist() == [7] and params["guard"] == 100
    assert params["hr"].values.tolist() == partition_of(np.array([7]), POSTING_PARTITIONS).tolist()
    routed = sorted(v for r in range(POSTING_PARTITIONS) for v in params[f"p{r}"].values.tolist())
    assert routed == [3, 5] and "kept" in sql
    sql, params = lookup_statement([3, 5, 7], version="v", guard=1_000, heavy=heavy)
    assert "kept" not in sql and "guard" not in params
    sql, params = lookup_statement([3, 5, 7], version="v", guard=None, heavy=heavy)
    assert "kept" not in sql
