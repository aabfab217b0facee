"""Scores for near-duplicate detection: pair precision/recall/F1 and the adjusted Rand index."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from math import comb

__all__ = ["PairScores", "pair_scores", "adjusted_rand_index"]


@dataclass(frozen=True, slots=True)
class PairScores:
    precision: float
    recall: float
    f1: float
    # Among pairs that are near-duplicates in truth and that the method called duplicate or
    # containment: the fraction with the right one of the two (None: method never said either).
    relation_accuracy: float | None
    relation_decided: int


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def pair_scores(
    truth: Mapping[tuple[str, str], str], predicted: Mapping[tuple[str, str], str]
) -> PairScores:
    """Scores of "near-duplicate (duplicate or containment) vs different" over ``truth``'s pairs.

    ``relation_accuracy`` counts only methods that decide containment at all: a method whose
    answers are all ``duplicate`` does not tell the two apart and gets None.
    """
    tp = fp = fn = right = decided = 0
    says_containment = any(kind == "containment" for kind in predicted.values())
    for pair, label in truth.items():
        guess = predicted.get(pair, "different")
        real, said = label != "different", guess != "different"
        tp += real and said
        fp += said and not real
        fn += real and not said
        if real and said and says_containment:
            decided += 1
            right += guess == label
    p, r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    f1 = _ratio(2 * tp, 2 * tp + fp + fn)
    accuracy = _ratio(right, decided) if says_containment else None
    return PairScores(p, r, f1, accuracy, decided)


def adjusted_rand_index(truth: Mapping[str, int], predicted: Mapping[str, int]) -> float:
    """Hubert & Arabie's ARI of two partitions of the same items (1: identical, ~0: chance).

    Items missing from ``predicted`` count as singletons.  Two trivial partitions (all
    singletons or one block on both sides) that agree score 1.
    """
    items = list(truth)
    pred = {item: predicted.get(item, ("singleton", item)) for item in items}
    contingency = Counter((truth[i], pred[i]) for i in items)
    sum_cells = sum(comb(n, 2) for n in contingency.values())
    sum_rows = sum(comb(n, 2) for n in Counter(truth[i] for i in items).values())
    sum_cols = sum(comb(n, 2) for n in Counter(pred[i] for i in items).values())
    total = comb(len(items), 2)
    expected = sum_rows * sum_cols / total if total else 0.0
    maximum = (sum_rows + sum_cols) / 2
    if maximum == expected:
        return 1.0
    return (sum_cells - expected) / (maximum - expected)
