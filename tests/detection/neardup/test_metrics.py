import pytest

from detection.neardup.metrics import adjusted_rand_index, pair_scores


def labels(values):
    return {f"d{i}": v for i, v in enumerate(values)}


def test_identical_partitions_score_one_whatever_the_names():
    assert adjusted_rand_index(labels([0, 0, 1, 1, 2]), labels([5, 5, 9, 9, 7])) == 1.0


def test_known_value():
    # Hand-computed: contingency cells {2,1,1,2} → index 2, rows 6, cols 3, total 15:
    # expected 6·3/15 = 1.2, max 4.5, ARI = (2 − 1.2) / (4.5 − 1.2) = 0.2424…
    truth, pred = labels([0, 0, 0, 1, 1, 1]), labels([0, 0, 1, 1, 2, 2])
    assert adjusted_rand_index(truth, pred) == pytest.approx(0.8 / 3.3)


def test_opposite_partitions_score_below_zero():
    truth, pred = labels([0, 0, 1, 1]), labels([0, 1, 0, 1])
    assert adjusted_rand_index(truth, pred) == pytest.approx(-0.5)


def test_missing_predictions_are_singletons():
    truth = labels([0, 0, 1])
    assert adjusted_rand_index(truth, {}) == adjusted_rand_index(truth, labels([0, 1, 2]))


def test_pair_scores_count_near_duplicates_and_relation_accuracy():
    truth = {
        ("a", "b"): "duplicate",
        ("a", "c"): "containment",
        ("a", "d"): "different",
        ("b", "d"): "different",
    }
    predicted = {("a", "b"): "duplicate", ("a", "c"): "duplicate", ("a", "d"): "containment"}
    scores = pair_scores(truth, predicted)
    assert (scores.precision, scores.recall) == (pytest.approx(2 / 3), 1.0)
    assert scores.f1 == pytest.approx(0.8)
    assert scores.relation_accuracy == 0.5 and scores.relation_decided == 2


def test_a_method_that_never_says_containment_has_no_relation_accuracy():
    scores = pair_scores({("a", "b"): "containment"}, {("a", "b"): "duplicate"})
    assert scores.relation_accuracy is None
