"""Copy detection: copied sentence pairs found through the inverted index (seed 003).

All features of the query document are looked up in one ``postings`` call (one round trip in
PostgreSQL); features in too many documents (``max_df``) are pruned there — they are
boilerplate ("本报讯", "all rights reserved") and would only produce candidates.  Every source
sentence sharing features with a query sentence is a candidate; its score is a set similarity
of the two feature sets (the seed's formula was lost):

- ``overlap``  = |A∩B| / min(|A|, |B|)  (default, see docs/detection.md for the measurements)
- ``jaccard``  = |A∩B| / |A∪B|
- ``containment`` = |A∩B| / |A| (query sentence inside the source sentence)

Overlap suits copies best: a copied sentence is often *part* of a longer sentence on the other
side (a copy starts mid-sentence, an editor line is glued on, a long sentence is cut
differently), which Jaccard punishes and overlap does not; light edits remove a few chains from
both sides alike.  ``min_shared`` keeps one accidental shared chain from making a pair.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection
from typing import NamedTuple

from detection.config import DetectorConfig, SimilarityMeasure
from detection.index import SentenceIndex
from detection.model import DocumentAnalysis

__all__ = ["SentencePair", "similarity", "copied_pairs"]


class SentencePair(NamedTuple):
    """Query sentence ``query`` copies sentence ``source`` of document ``document``."""

    document: int
    query: int
    source: int
    score: float


def similarity(shared: int, size_a: int, size_b: int, measure: SimilarityMeasure) -> float:
    """Similarity of two feature sets of sizes ``size_a``/``size_b`` sharing ``shared``."""
    if shared <= 0:
        return 0.0
    if measure == "overlap":
        return shared / min(size_a, size_b)
    if measure == "jaccard":
        return shared / (size_a + size_b - shared)
    return shared / size_a


def _is_pair(shared: int, size_a: int, size_b: int, config: DetectorConfig) -> bool:
    # A one-feature sentence can only ever share one feature: accept it when both sides are
    # exactly that feature; sequence matching decides whether it belongs to a passage.
    return shared >= config.min_shared or (shared == size_a == size_b)


def copied_pairs(
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    *,
    exclude: Collection[int] = (),
    config: DetectorConfig,
) -> list[SentencePair]:
    """All (query sentence, source sentence) pairs scoring at least the threshold."""
    features = {f for sentence in analysis.sentences for f in sentence.features}
    if not features:
        return []
    max_df = config.max_df(index.document_count())
    by_feature: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for feature, document, source, size in index.postings(features, max_df=max_df):
        if document not in exclude:
            by_feature[feature].append((document, source, size))
    pairs: list[SentencePair] = []
    for sentence in analysis.sentences:
        counts: Counter[tuple[int, int, int]] = Counter()
        for feature in sentence.features:
            counts.update(by_feature.get(feature, ()))
        size = len(sentence.features)
        for (document, source, source_size), shared in counts.items():
            if not _is_pair(shared, size, source_size, config):
                continue
            score = _pair_score(shared, size, source_size, config)
            if score is not None:
                pairs.append(SentencePair(document, sentence.index, source, score))
    return pairs


def _pair_score(shared: int, size: int, source_size: int, config: DetectorConfig) -> float | None:
    """The pair's score, or None when it is not a copied pair.

    Besides the main measure, a pair also counts when the smaller sentence has at least
    ``containment_min_features`` features and lies mostly (``containment_threshold``) inside the
    larger: a copy that merged or split sentences (punctuation changed) pairs one long unit with
    a short one, which Jaccard rejects; the size floor keeps short reference-list lines from
    matching every longer line that contains them.
    """
    score = similarity(shared, size, source_size, config.similarity)
    if score >= config.sentence_threshold:
        return score
    smaller = min(size, source_size)
    if smaller >= config.containment_min_features and (
        shared / smaller >= config.containment_threshold
    ):
        return max(score, config.sentence_threshold)
    return None
