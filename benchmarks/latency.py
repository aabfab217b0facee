"""Bulk archive loading with composed analyses, and check latency against the archive.

`archive_grow` loads variants through the code under test (`PostgresSentenceIndex.add_many`)
and times its COPY separately (the private `_copy_postings` is wrapped, not replaced).
`check_latency` times, per query document, the index lookup alone (`postings()` for all the
query's features, one round trip, with the detector's df limit) and the full check
(`detection.detect`: lookup, candidate pairs, scoring, sequence matching and `spans()`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
from django.db import transaction

from benchmarks.corpus import Recombiner, Variant, document_id
from benchmarks.database import documents_load
from detection import DEFAULT_CONFIG, DocumentAnalysis, detect
from detection.detector import UnitStore, detect_refined
from documents.detector_config import detector_config
from documents.index.store import PostgresSentenceIndex


@dataclass
class LoadClock:
    """Seconds spent in the whole `add_many` calls, in their COPY, and in ANALYZE."""

    add_many: float = 0.0
    copy: float = 0.0
    analyze: float = 0.0
    rows_and_sentences: float = 0.0
    postings: int = 0
    documents: int = 0
    batches: list[float] = field(default_factory=list)


def timed_index(alias: str, model_version: str, clock: LoadClock) -> PostgresSentenceIndex:
    """An index whose COPY and ANALYZE report their time to `clock`."""
    index = PostgresSentenceIndex(model_version=model_version, using=alias)
    index._copy_postings = _timer(index._copy_postings, clock, "copy")  # type: ignore[method-assign]
    index.analyze = _timer(index.analyze, clock, "analyze")  # type: ignore[method-assign]
    return index


def _timer(function: Callable, clock: LoadClock, name: str) -> Callable:
    def wrapped(*args: object, **kwargs: object) -> object:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            setattr(clock, name, getattr(clock, name) + time.perf_counter() - started)

    return wrapped


def archive_grow(
    recombiner: Recombiner,
    index: PostgresSentenceIndex,
    clock: LoadClock,
    *,
    collection_id: int,
    ids: Sequence[int],
    batch: int,
    store_text: bool,
) -> None:
    """Load variants `ids` (composed analyses) in committed batches of `batch` documents.

    `store_text=False` leaves Document.text empty (detection never reads it; saves disk).
    """
    alias = index.using
    for at in range(0, len(ids), batch):
        chunk = [
            (document_id(i), v.text if store_text else "", v.analysis)
            for i, v in _variants(recombiner, ids[at : at + batch])
        ]
        with transaction.atomic(using=alias):
            started = time.perf_counter()
            documents_load(alias, collection_id, chunk)
            loaded = time.perf_counter()
            written = index.add_many([(i, a) for i, _, a in chunk])
            done = time.perf_counter()
        clock.rows_and_sentences += loaded - started
        clock.add_many += done - loaded
        clock.batches.append(done - loaded)
        clock.postings += written
        clock.documents += len(chunk)


def _variants(recombiner: Recombiner, ids: Sequence[int]) -> list[tuple[int, Variant]]:
    return [(i, recombiner.variant(i)) for i in ids]


@dataclass(frozen=True)
class Latency:
    lookup_ms: list[float]
    check_ms: list[float]
    features_asked: list[int]  # the query's distinct features
    postings_returned: list[int]
    passages: list[int]
    sources: list[frozenset[int]]  # the documents each check reported passages from


def check_latency(
    index: PostgresSentenceIndex, queries: Sequence[DocumentAnalysis], *, rounds: int = 1
) -> Latency:
    """Lookup-only and full-check wall time per query (the first query is run once untimed)."""
    max_df = DEFAULT_CONFIG.max_df(index.document_count())
    # Warm the connection, plan cache and shared buffers for the shape.
    detect(queries[0], index, config=detector_config())
    lookup, check, asked, returned, passages, sources = [], [], [], [], [], []
    for _ in range(rounds):
        for analysis in queries:
            # As copied_pairs asks: the query's distinct features, sorted, as an array.
            flat = chain.from_iterable(s.features for s in analysis.sentences)
            features = np.unique(np.fromiter(flat, np.int64))
            started = time.perf_counter()
            found = index.postings(features, max_df=max_df)
            lookup.append((time.perf_counter() - started) * 1000)
            asked.append(len(features))
            returned.append(len(found))
            started = time.perf_counter()
            reported = detect(analysis, index, config=detector_config())
            check.append((time.perf_counter() - started) * 1000)
            passages.append(len(reported))
            sources.append(frozenset(p.source for p in reported))
    return Latency(lookup, check, asked, returned, passages, sources)


def refined_check_ms(
    index: PostgresSentenceIndex,
    queries: Sequence[tuple[str, DocumentAnalysis]],
    source_text: Callable[[int], str],
    unit_store: UnitStore | None = None,
) -> list[float]:
    """Wall time per query of the check the app runs (`detect_refined`: the lookup, word-level
    borders and the disguised-copy stage over every candidate source), with the source texts
    read from memory rather than the database; with `unit_store`, the sources' sentence
    units are read from it (and the missing ones written to it) as the app does."""
    timings = []
    for text, analysis in queries:
        started = time.perf_counter()
        detect_refined(
            text, analysis, index, source_text, config=detector_config(), unit_store=unit_store
        )
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (no interpolation: a value that was really measured)."""
    ordered = sorted(values)
    rank = min(len(ordered), max(1, math.ceil(q * len(ordered))))
    return ordered[rank - 1]


def source_recall(found: Sequence[frozenset[int]], truth: Sequence[frozenset[int]]) -> float:
    """Mean over queries of the share of its true sources that were found."""
    shares = [len(f & t) / len(t) for f, t in zip(found, truth, strict=True) if t]
    return round(sum(shares) / len(shares), 4) if shares else 0.0


def latency_summary(
    latency: Latency, truth: Sequence[frozenset[int]] | None = None
) -> dict[str, object]:
    """Percentiles of one `check_latency`; with `truth` (each query's source documents),
    also the share of them its full check reported."""

    def ms(values: Sequence[float], q: float) -> float:
        return round(percentile(values, q), 2)

    recall = {} if truth is None else {"source_recall": source_recall(latency.sources, truth)}
    return {
        "queries": len(latency.lookup_ms),
        "lookup_p50_ms": ms(latency.lookup_ms, 0.5),
        "lookup_p95_ms": ms(latency.lookup_ms, 0.95),
        "check_p50_ms": ms(latency.check_ms, 0.5),
        "check_p95_ms": ms(latency.check_ms, 0.95),
        "postings_returned_p50": percentile(latency.postings_returned, 0.5),
        "postings_returned_max": max(latency.postings_returned),
        # Whether the tail is the largest queries or a slow moment of the machine.
        "slowest_lookups": _slowest(latency, 5),
        "passages_found_p50": percentile(latency.passages, 0.5),
        "sources_reported_p50": percentile([len(s) for s in latency.sources], 0.5),
        **recall,
    }


def _slowest(latency: Latency, count: int) -> list[dict[str, float]]:
    """The `count` slowest lookups: ms, the query's features, the postings returned."""
    order = sorted(range(len(latency.lookup_ms)), key=lambda i: -latency.lookup_ms[i])
    return [
        {
            "ms": round(latency.lookup_ms[i], 2),
            "features": latency.features_asked[i],
            "postings": latency.postings_returned[i],
        }
        for i in order[:count]
    ]


def batch_all_pairs(alias: str, batch: Sequence[tuple[int, DocumentAnalysis]]) -> dict[str, object]:
    """All-pairs inside a batch the way the app does it (documents.services._process).

    Every document is checked once against an index scoped to the batch (excluding itself):
    K inverted-index lookups instead of K*(K-1)/2 document comparisons.
    """
    ids = [document for document, _ in batch]
    index = PostgresSentenceIndex(
        model_version=batch[0][1].model_version, documents=ids, using=alias
    )
    per_document: list[float] = []
    pairs: set[tuple[int, int]] = set()
    started = time.perf_counter()
    for document, analysis in batch:
        begun = time.perf_counter()
        for passage in detect(analysis, index, exclude={document}, config=detector_config()):
            pairs.add((min(document, passage.source), max(document, passage.source)))
        per_document.append((time.perf_counter() - begun) * 1000)
    seconds = time.perf_counter() - started
    return {
        "documents": len(batch),
        "seconds": round(seconds, 2),
        "per_document_p50_ms": round(percentile(per_document, 0.5), 2),
        "per_document_p95_ms": round(percentile(per_document, 0.95), 2),
        "document_pairs_with_passages": len(pairs),
        "possible_pairs": len(batch) * (len(batch) - 1) // 2,
    }


def remove_latency(
    index: PostgresSentenceIndex, items: Sequence[tuple[int, DocumentAnalysis]]
) -> dict[str, object]:
    """Time `remove` (postings deleted by their ref range via BRIN, df decremented) per
    document, then put the documents back with one `add_many` (the archive is unchanged)."""
    times: list[float] = []
    for document, _ in items:
        started = time.perf_counter()
        index.remove(document)
        times.append((time.perf_counter() - started) * 1000)
    index.add_many(items)
    return {
        "documents": len(items),
        "remove_p50_ms": round(percentile(times, 0.5), 2),
        "remove_p95_ms": round(percentile(times, 0.95), 2),
    }
