"""Sequence matching (seed 003, the fifth subsystem): copied sentence pairs → copied passages.

Pairs of one source document are taken in query order and grown into clusters: a pair joins
the most recent cluster it fits, i.e. when

- at most ``max_gap`` query sentences lie between the cluster's last query sentence and the
  pair's (inserted foreign sentences, sentences edited beyond recognition), and
- its source sentence lies within ``source_window`` sentences of the cluster's source range
  (copies that reorder sentences inside a paragraph or skip some).

A cluster covers query sentences first..last and source sentences min..max; it becomes a
passage when it holds at least ``min_passage_sentences`` distinct copied query sentences, or a
single copied sentence of at least ``min_single_chars`` characters (one long verbatim sentence
is a copy; one short shared phrase — a dateline, a slogan — is not).  Passages overlapping on
both sides are merged.  A passage's score is the mean best score of its copied sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from detection.config import DetectorConfig
from detection.model import Passage, SentenceRecord
from detection.scoring import SentencePair

__all__ = ["Cluster", "cluster_pairs", "passages_for_document"]


@dataclass(slots=True)
class Cluster:
    """A run of copied sentence pairs of one document pair (mutable while it grows)."""

    query_first: int
    query_last: int
    source_first: int
    source_last: int
    best: dict[int, float] = field(default_factory=dict)

    def fits(self, pair: SentencePair, config: DetectorConfig) -> int | None:
        """Source distance when ``pair`` may join this cluster, else None."""
        if pair.query - self.query_last - 1 > config.max_gap:
            return None
        if pair.source < self.source_first:
            distance = self.source_first - pair.source
        elif pair.source > self.source_last:
            distance = pair.source - self.source_last
        else:
            distance = 0
        return distance if distance <= config.source_window else None

    def add(self, pair: SentencePair) -> None:
        self.query_last = max(self.query_last, pair.query)
        self.source_first = min(self.source_first, pair.source)
        self.source_last = max(self.source_last, pair.source)
        self.best[pair.query] = max(self.best.get(pair.query, 0.0), pair.score)


def cluster_pairs(pairs: Sequence[SentencePair], config: DetectorConfig) -> list[Cluster]:
    """Group one document's copied pairs into clusters (see the module docstring)."""
    clusters: list[Cluster] = []
    for pair in sorted(pairs, key=lambda p: (p.query, p.source)):
        chosen: Cluster | None = None
        chosen_distance = config.source_window + 1
        for cluster in reversed(clusters):
            if pair.query - cluster.query_last - 1 > config.max_gap:
                break
            distance = cluster.fits(pair, config)
            if distance is not None and distance < chosen_distance:
                chosen, chosen_distance = cluster, distance
        if chosen is None:
            chosen = Cluster(pair.query, pair.query, pair.source, pair.source)
            clusters.append(chosen)
        chosen.add(pair)
    return clusters


def _accepts(cluster: Cluster, length: int, config: DetectorConfig) -> bool:
    if len(cluster.best) >= config.min_passage_sentences:
        return True
    return length >= config.min_single_chars


def _merge(passages: list[Passage]) -> list[Passage]:
    merged: list[Passage] = []
    for passage in sorted(passages):
        last = merged[-1] if merged else None
        if (
            last is not None
            and passage.start < last.end
            and passage.source_start < last.source_end
            and passage.source_end > last.source_start
        ):
            merged[-1] = Passage(
                last.source,
                last.start,
                max(last.end, passage.end),
                min(last.source_start, passage.source_start),
                max(last.source_end, passage.source_end),
                max(last.score, passage.score),
            )
        else:
            merged.append(passage)
    return merged


def passages_for_document(
    document: int,
    pairs: Sequence[SentencePair],
    query: Sequence[SentenceRecord],
    source_spans: dict[int, tuple[int, int]],
    config: DetectorConfig,
) -> list[Passage]:
    """Copied passages between the query and source ``document`` from their copied pairs.

    ``source_spans`` must hold the character span of every source sentence in ``pairs``.
    """
    passages: list[Passage] = []
    for cluster in cluster_pairs(pairs, config):
        start, end = query[cluster.query_first].start, query[cluster.query_last].end
        if not _accepts(cluster, end - start, config):
            continue
        score = sum(cluster.best.values()) / len(cluster.best)
        source_start = source_spans[cluster.source_first][0]
        source_end = source_spans[cluster.source_last][1]
        passages.append(Passage(document, start, end, source_start, source_end, score))
    return _merge(passages)
