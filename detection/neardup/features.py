"""Shared pieces of the feature-set methods: document frequencies and an inverted index."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable

__all__ = ["noise_features", "InvertedIndex"]


def noise_features(
    feature_sets: Iterable[Collection[int]], *, min_df: int, df_ratio: float
) -> frozenset[int]:
    """Features in at least ``max(min_df, df_ratio * N)`` of N documents (low IDF: templates).

    The period method drops "noisy" features whose IDF is below a threshold; IDF = log(N / df)
    is monotone in df, so the threshold is stated as a document frequency, which does not
    change meaning with N (same reasoning as ``templates.TemplateConfig``).
    """
    sets = list(feature_sets)
    df: Counter[int] = Counter()
    for features in sets:
        df.update(set(features))
    limit = max(min_df, df_ratio * len(sets))
    return frozenset(f for f, n in df.items() if n >= limit)


class InvertedIndex:
    """feature → documents, answering with shared-feature counts (period method, step 3 ①–③)."""

    def __init__(self, min_shared: int = 1) -> None:
        self._postings: defaultdict[int, set[int]] = defaultdict(set)
        self._min_shared = min_shared

    def add_features(self, doc_id: int, features: Iterable[int]) -> None:
        for feature in set(features):
            self._postings[feature].add(doc_id)

    def shared_counts(self, features: Iterable[int]) -> Counter[int]:
        counts: Counter[int] = Counter()
        for feature in set(features):
            counts.update(self._postings.get(feature, ()))
        return counts

    def candidates_for(self, features: Iterable[int]) -> set[int]:
        counts = self.shared_counts(features)
        return {doc for doc, n in counts.items() if n >= self._min_shared}
