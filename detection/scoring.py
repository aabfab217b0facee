"""Copy detection: copied sentence pairs found through the inverted index (Low-IDF-Sig).

All features of the query document are looked up in one ``postings`` call (one round trip in
PostgreSQL); features in too many documents (``max_df``) are pruned there — they are
boilerplate ("本报讯", "all rights reserved") and would only produce candidates.  Likewise, a
feature in more than ``max_sentence_df`` sentences of ONE document (the query, or one source)
is ignored for that document: a document's own refrain (a repeated header, a text pasted many
times) cannot say which of its sentences was copied, and a feature in k query and m source
sentences would make k·m candidate pairs — the bound keeps the work linear in the text length
(docs/detection.md, "Bounded work on repetitive texts").  Every source
sentence sharing features with a query sentence is a candidate; its score is a set similarity
of the two feature sets (the seed's formula was lost):

- ``jaccard``  = |A∩B| / |A∪B|  (default, see docs/detection.md for the measurements)
- ``overlap``  = |A∩B| / min(|A|, |B|)
- ``containment`` = |A∩B| / |A| (query sentence inside the source sentence)

Overlap lets a short sentence match any long sentence holding its few chains (on PAN it linked
unrelated reference-list lines); Jaccard needs both sentences to be mostly shared, and light
edits remove a few chains from both sides alike.  A copy that merges or splits sentences is
caught by the containment rule (``containment_threshold``) instead.  ``min_shared`` keeps one
accidental shared chain from making a pair.

The counting is array work (numpy): the query's (sentence, feature) pairs are joined with the
postings on the feature, and the (query sentence, source reference) pairs are counted after
one sort; a worst-case 10,000-character check joins ~5,000 postings.  A property test checks
it against the per-sentence loop of the definition.
"""

from __future__ import annotations

from collections.abc import Collection
from itertools import chain
from typing import NamedTuple

import numpy as np

from detection.config import DetectorConfig, SimilarityMeasure
from detection.index import MAX_SIZE, Postings, SentenceIndex, unpack_refs
from detection.model import DocumentAnalysis

__all__ = ["SentencePair", "QueryMatch", "similarity", "copied_pairs", "match_query"]


class SentencePair(NamedTuple):
    """Query sentence ``query`` copies sentence ``source`` of document ``document``.

    ``strong`` is False for two one-feature sentences sharing it: the feature of a sentence
    without any antecedent is only its opening chain (two words), which unrelated sentences
    share ("只是由于…"): such a pair may extend a passage but is no passage on its own.

    ``edge`` pairs fail the pair rules but share a feature and reach the config's
    ``extension_threshold`` (their ``score`` is their Jaccard): they may only continue a
    passage at one of its ends (`detection.align`), where a copy's first or last sentences
    were edited the most.
    """

    document: int
    query: int
    source: int
    score: float
    strong: bool = True
    edge: bool = False


def similarity(shared: int, size_a: int, size_b: int, measure: SimilarityMeasure) -> float:
    """Similarity of two feature sets of sizes ``size_a``/``size_b`` sharing ``shared``."""
    if shared <= 0:
        return 0.0
    if measure == "overlap":
        return shared / min(size_a, size_b)
    if measure == "jaccard":
        return shared / (size_a + size_b - shared)
    return shared / size_a


class QueryMatch(NamedTuple):
    """What the index gives for one query: its sentence pairs (:func:`copied_pairs`) and,
    by source document, how many distinct features it shares with the query and their
    weight (the sum of their idf, log(documents / df), df counted in the postings found)."""

    pairs: list[SentencePair]
    shared_features: dict[int, int]
    shared_weights: dict[int, float]


def copied_pairs(
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    *,
    exclude: Collection[int] = (),
    config: DetectorConfig,
) -> list[SentencePair]:
    """All (query sentence, source sentence) pairs scoring at least the threshold, and the
    edge pairs (`SentencePair.edge`), ordered by query sentence, document and source
    sentence."""
    return match_query(analysis, index, exclude=exclude, config=config, count=False).pairs


def match_query(
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    *,
    exclude: Collection[int] = (),
    config: DetectorConfig,
    count: bool = True,
) -> QueryMatch:
    """:func:`copied_pairs` and (with ``count``) the shared features by document, from one
    index look-up."""
    sentences = analysis.sentences
    lengths = np.fromiter((len(s.features) for s in sentences), np.int64, len(sentences))
    total = int(lengths.sum())
    if not total:
        return QueryMatch([], {}, {})
    features = np.fromiter(chain.from_iterable(s.features for s in sentences), np.int64, total)
    owners = np.repeat(np.arange(len(sentences)), lengths)  # position of each feature's sentence
    sizes = np.minimum(lengths, MAX_SIZE)  # as the index stores them
    features, owners = _rare_in_query(features, owners, config.max_sentence_df)
    documents_count = index.document_count()
    max_df = config.max_df(documents_count)
    found = index.postings(np.unique(features), max_df=max_df)
    found = _rare_in_sources(_without(found, exclude), config.max_sentence_df)
    shared_features, shared_weights = _features_by_document(found, documents_count, count)
    owners, refs = _shared(features, owners, found)
    owners, refs, shared = _counted(owners, refs)
    documents, sources, source_sizes = unpack_refs(refs)
    query_sizes = sizes[owners]
    scores = _scores(shared, query_sizes, source_sizes, config)
    paired = scores >= 0
    jaccard = _jaccard(shared, query_sizes, source_sizes)
    edge = _edge_pairs(jaccard, paired, config)
    scores = np.where(edge, jaccard, scores)
    kept = np.flatnonzero(paired | edge)
    strong = paired[kept] & (shared[kept] >= config.min_shared)
    numbers = [s.index for s in sentences]
    pairs = [
        SentencePair(document, numbers[owner], source, score, firm, extends)
        for document, owner, source, score, firm, extends in zip(
            documents[kept].tolist(), owners[kept].tolist(), sources[kept].tolist(),
            scores[kept].tolist(), strong.tolist(), edge[kept].tolist(), strict=True,
        )
    ]  # fmt: skip
    return QueryMatch(pairs, shared_features, shared_weights)


def _features_by_document(
    found: Postings, documents_count: int, count: bool
) -> tuple[dict[int, int], dict[int, float]]:
    """How many distinct features of ``found`` (postings of query features) each document
    holds, and their summed idf (log of ``documents_count`` over the documents a feature's
    postings name): a feature few documents hold says more about where a text came from than
    one that fifty hold.  Empty without ``count``."""
    if not count or not len(found):
        return {}, {}
    documents = unpack_refs(found.refs)[0]
    order = np.lexsort((documents, found.features))
    documents, features = documents[order], found.features[order]
    fresh = np.ones(len(order), dtype=bool)
    fresh[1:] = (documents[1:] != documents[:-1]) | (features[1:] != features[:-1])
    documents, features = documents[fresh], features[fresh]  # one per (feature, document)
    first = np.flatnonzero(np.r_[True, features[1:] != features[:-1]])
    df = np.diff(np.r_[first, len(features)])
    idf = np.repeat(np.log(max(documents_count, 1) / df), df)
    held, inverse, counts = np.unique(documents, return_inverse=True, return_counts=True)
    weights = np.bincount(inverse, weights=idf, minlength=len(held))
    numbers = held.tolist()
    return (
        dict(zip(numbers, counts.tolist(), strict=True)),
        dict(zip(numbers, weights.tolist(), strict=True)),
    )


def _jaccard(shared: np.ndarray, sizes: np.ndarray, source_sizes: np.ndarray) -> np.ndarray:
    """|A∩B| / |A∪B| (at most 1: sizes are capped at MAX_SIZE)."""
    return np.minimum(shared / np.maximum(sizes + source_sizes - shared, 1), 1.0)


def _edge_pairs(jaccard: np.ndarray, paired: np.ndarray, config: DetectorConfig) -> np.ndarray:
    """Which candidates are edge pairs: not copied pairs, Jaccard at least
    ``extension_threshold`` (every candidate shares a feature)."""
    if config.extension_threshold is None:
        return np.zeros(len(jaccard), dtype=bool)
    return ~paired & (jaccard >= config.extension_threshold)


def _without(found: Postings, exclude: Collection[int]) -> Postings:
    if not exclude or not len(found):
        return found
    documents = unpack_refs(found.refs)[0]
    kept = ~np.isin(documents, np.fromiter(exclude, np.int64, len(exclude)))
    return Postings(found.features[kept], found.refs[kept])


def _rare_in_query(
    features: np.ndarray, owners: np.ndarray, limit: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The query's (feature, sentence) occurrences without the features found in more than
    ``limit`` of its sentences (a sentence's features are distinct: occurrences = sentences)."""
    if limit is None or not len(features):
        return features, owners
    _, inverse, counts = np.unique(features, return_inverse=True, return_counts=True)
    kept = counts[inverse] <= limit
    return features[kept], owners[kept]


def _rare_in_sources(found: Postings, limit: int | None) -> Postings:
    """``found`` without the postings of a feature in a document where that feature occurs in
    more than ``limit`` sentences (per source document: it may be rare in the others)."""
    if limit is None or len(found) <= limit:
        return found
    documents = unpack_refs(found.refs)[0]
    order = np.lexsort((documents, found.features))
    features, documents = found.features[order], documents[order]
    fresh = np.ones(len(order), dtype=bool)
    fresh[1:] = (features[1:] != features[:-1]) | (documents[1:] != documents[:-1])
    starts = np.flatnonzero(fresh)
    runs = np.diff(np.append(starts, len(order)))
    kept = np.zeros(len(order), dtype=bool)
    kept[order] = np.repeat(runs <= limit, runs)
    return Postings(found.features[kept], found.refs[kept])


def _shared(
    features: np.ndarray, owners: np.ndarray, found: Postings
) -> tuple[np.ndarray, np.ndarray]:
    """Every (query sentence, source reference) pair of a shared feature, once per feature:
    the postings sorted by feature, each query feature expanded to its run of them."""
    order = np.argsort(found.features, kind="stable")
    posted, refs = found.features[order], found.refs[order]
    first = np.searchsorted(posted, features, side="left")
    runs = np.searchsorted(posted, features, side="right") - first
    which = np.repeat(np.arange(len(features)), runs)
    offsets = np.arange(len(which)) - np.repeat(np.cumsum(runs) - runs, runs)
    return owners[which], refs[first[which] + offsets]


def _counted(owners: np.ndarray, refs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (owner, ref) pairs in (owner, ref) order and how often each occurred (the
    shared features: a sentence's features are distinct, and so are a feature's postings)."""
    order = np.lexsort((refs, owners))
    owners, refs = owners[order], refs[order]
    fresh = np.ones(len(owners), dtype=bool)
    fresh[1:] = (owners[1:] != owners[:-1]) | (refs[1:] != refs[:-1])
    starts = np.flatnonzero(fresh)
    shared = np.diff(np.append(starts, len(owners)))
    return owners[starts], refs[starts], shared


def _scores(
    shared: np.ndarray, sizes: np.ndarray, source_sizes: np.ndarray, config: DetectorConfig
) -> np.ndarray:
    """Each pair's score, or -1 when it is not a copied pair.

    A pair needs ``min_shared`` features, unless both sentences are exactly the one feature
    they share (sequence matching decides whether it belongs to a passage).  Besides the main
    measure, a pair also counts when the smaller sentence has at least
    ``containment_min_features`` features and lies mostly (``containment_threshold``) inside the
    larger: a copy that merged or split sentences (punctuation changed) pairs one long unit with
    a short one, which Jaccard rejects; the size floor keeps short reference-list lines from
    matching every longer line that contains them.
    """
    smaller = np.minimum(sizes, source_sizes)
    if config.similarity == "overlap":
        scores = shared / smaller
    elif config.similarity == "jaccard":
        scores = shared / (sizes + source_sizes - shared)
    else:
        scores = shared / sizes
    contained = (smaller >= config.containment_min_features) & (
        shared / smaller >= config.containment_threshold
    )
    threshold = config.sentence_threshold
    # Sizes are capped at MAX_SIZE: two giant sentences may share more features than that.
    scores = np.minimum(scores, 1.0)
    scores = np.where(scores >= threshold, scores, np.where(contained, threshold, -1.0))
    pair = (shared >= config.min_shared) | ((shared == sizes) & (sizes == source_sizes))
    return np.where(pair, scores, -1.0)
