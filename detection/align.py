"""Sequence matching (Low-IDF-Sig's fifth subsystem): copied sentence pairs → copied passages.

1. Clustering.  Pairs of one source document are taken in query order; a pair joins the most
   recent cluster it fits: at most ``max_gap`` query sentences lie between the cluster's last
   query sentence and the pair's (inserted foreign sentences, sentences edited beyond
   recognition) and its source sentence lies within ``source_window`` sentences of the
   cluster's source range (reordering inside a passage); a source sentence before that range
   is measured from the range's end, so two copies in swapped source order stay apart, and a
   query sentence whose best match returns to a source sentence the cluster copied before
   moving on starts a new cluster (the same source text copied twice).
2. Splitting at source gaps.  A cluster whose copied source sentences leave more than
   ``max_source_gap`` source sentences in a row uncopied is split there: reordering permutes
   one contiguous block, while two separate copies from one source that land close together in
   the query come from separate blocks.
3. A cluster becomes a passage when it holds at least ``min_passage_sentences`` distinct copied
   query sentences, or fewer copied sentences spanning at least ``min_single_chars`` characters
   whose length × mean score reaches ``min_single_mass`` (a whole sentence copied is a copy —
   the shorter it is, the closer the match must be; one short shared phrase, a dateline or a
   slogan, is not).
4. Extension at the edges.  Each passage grows at both ends by edge pairs
   (`SentencePair.edge`: sentences edited too much for the pair rules that still share a
   feature): the next query sentence after the passage (or before it), at most
   ``extension_gap`` unpaired sentences away, joins when it pairs so with a source sentence
   that continues the passage's source side (at most ``max_source_gap`` sentences beyond
   it, or one back), and has no copied pair of its own in that source. A copy's first and
   last sentences are where editors rewrite most; edge pairs never start or bridge anything
   themselves.
5. Passages overlapping on both sides, or continuing each other in order on both sides within
   ``join_chars`` characters (one copy found in pieces; the second must not begin earlier in
   the source — a passage is monotone on both sides), are merged; of passages still
   overlapping on the query side (text repeated in the source, e.g. reference lists), only the
   one with most copied sentences is kept — a query passage is copied from one place.

A passage's score is the mean best score of its copied sentences.  Each :class:`Alignment` also
remembers which sentences define its four borders, so :mod:`detection.refine` can move them to
word level when both texts are available.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from detection.config import DetectorConfig
from detection.model import Passage, SentenceRecord
from detection.scoring import SentencePair

__all__ = [
    "Alignment",
    "Border",
    "Cluster",
    "cluster_pairs",
    "split_at_source_gaps",
    "align",
    "follows",
]

Span = tuple[int, int]


@dataclass(slots=True)
class Cluster:
    """A run of copied sentence pairs of one document pair (mutable while it grows)."""

    pairs: list[SentencePair] = field(default_factory=list)
    query_last: int = -1
    source_first: int = 0
    source_last: int = -1
    # source sentences that are some query sentence's best match, and the latest of them
    copied: set[int] = field(default_factory=set)
    copied_last: int = -1

    def distance(self, pair: SentencePair, config: DetectorConfig, *, best: bool) -> int | None:
        """Source distance when ``pair`` may join this cluster, else None.

        ``best``: the pair is its query sentence's best match (only those can say that a
        source sentence is copied a second time).
        """
        if pair.query - self.query_last - 1 > config.max_gap:
            return None
        if best and self.copies_again(pair):
            return None
        if pair.source < self.source_first:
            # Measured from the furthest source sentence reached, not from the range's start:
            # reordering permutes sentences inside a window, while a jump back across the
            # whole run copied so far is a second copy whose source precedes the first
            # (two passages copied in swapped order).
            distance = self.source_last - pair.source
        else:
            distance = max(0, pair.source - self.source_last)
        return distance if distance <= config.source_window else None

    def copies_again(self, pair: SentencePair) -> bool:
        """Whether ``pair`` returns to a source sentence this cluster copied before it moved
        on to others: the start of a second copy of the same source text (a paragraph copied
        twice), which must not become one passage with the first and the text between them.
        Staying on the latest one is allowed: a long source sentence split into several
        query sentences, some too short or edited to match."""
        return pair.source in self.copied and pair.source != self.copied_last

    def add(self, pair: SentencePair, *, best: bool) -> None:
        if best:
            self.copied.add(pair.source)
            self.copied_last = pair.source
        if not self.pairs:
            self.source_first = self.source_last = pair.source
        self.pairs.append(pair)
        self.query_last = max(self.query_last, pair.query)
        self.source_first = min(self.source_first, pair.source)
        self.source_last = max(self.source_last, pair.source)


def cluster_pairs(pairs: Sequence[SentencePair], config: DetectorConfig) -> list[Cluster]:
    """Group one document's copied pairs into clusters (step 1)."""
    clusters: list[Cluster] = []
    ordered = sorted(pairs, key=lambda p: (p.query, p.source))
    best = set(_best_pairs(ordered))
    for pair in ordered:
        chosen: Cluster | None = None
        chosen_distance = config.source_window + 1
        for cluster in reversed(clusters):
            if pair.query - cluster.query_last - 1 > config.max_gap:
                break
            distance = cluster.distance(pair, config, best=pair in best)
            if distance is not None and distance < chosen_distance:
                chosen, chosen_distance = cluster, distance
        if chosen is None:
            chosen = Cluster()
            clusters.append(chosen)
        chosen.add(pair, best=pair in best)
    return clusters


def split_at_source_gaps(cluster: Cluster, config: DetectorConfig) -> list[list[SentencePair]]:
    """The cluster's pairs grouped by contiguous blocks of copied source sentences (step 2)."""
    sources = sorted({pair.source for pair in cluster.pairs})
    block_of: dict[int, int] = {}
    block = 0
    for previous, current in zip([sources[0], *sources], sources, strict=False):
        if current - previous - 1 > config.max_source_gap:
            block += 1
        block_of[current] = block
    groups: dict[int, list[SentencePair]] = {}
    for pair in cluster.pairs:
        groups.setdefault(block_of[pair.source], []).append(pair)
    return list(groups.values())


@dataclass(frozen=True, slots=True)
class Border:
    """The sentence that defines a passage border on one side and its copied partner."""

    own: Span
    partner: Span


@dataclass(frozen=True, slots=True)
class Alignment:
    """A passage plus the sentence pairs behind its borders.

    ``query_head``: the first query sentence (``own``) and the source sentence it copies;
    ``source_head``: the first source sentence (``own``) and the query sentence copying it;
    ``query_tail`` / ``source_tail`` likewise for the last sentences.
    ``strength``: how many copied sentence pairs it rests on.
    """

    passage: Passage
    strength: int
    query_head: Border
    source_head: Border
    query_tail: Border
    source_tail: Border
    # Made of weak pairs only (`SentencePair.strong`): one-feature sentences sharing their
    # opening chain. Where the texts are at hand (`detection.refine`) it must show copied words.
    weak: bool = False
    # The alignment before its edges were extended (None: this one): what a weak or one-pair
    # alignment must show copied words in, and where refinement falls back to at an edge
    # whose words do not agree (`detection.refine`).
    core: Alignment | None = None


def _best_pairs(pairs: Sequence[SentencePair]) -> list[SentencePair]:
    best: dict[int, SentencePair] = {}
    for pair in pairs:
        if pair.query not in best or pair.score > best[pair.query].score:
            best[pair.query] = pair
    return list(best.values())


def _alignment(
    document: int,
    pairs: Sequence[SentencePair],
    query: Sequence[SentenceRecord],
    source: Mapping[int, Span],
    config: DetectorConfig,
) -> Alignment | None:
    best = _best_pairs(pairs)
    first_q = min(best, key=lambda p: p.query)
    last_q = max(best, key=lambda p: p.query)
    first_s = min(best, key=lambda p: (p.source, p.query))
    last_s = max(best, key=lambda p: (p.source, -p.query))
    start, end = query[first_q.query].start, query[last_q.query].end
    score = sum(p.score for p in best) / len(best)
    if len(best) < config.min_passage_sentences and (
        end - start < config.min_single_chars or (end - start) * score < config.min_single_mass
    ):
        return None

    def span(pair: SentencePair) -> Span:
        return query[pair.query].start, query[pair.query].end

    passage = Passage(
        document, start, end, source[first_s.source][0], source[last_s.source][1], score
    )
    return Alignment(
        passage,
        len(best),
        Border(span(first_q), source[first_q.source]),
        Border(source[first_s.source], span(first_s)),
        Border(span(last_q), source[last_q.source]),
        Border(source[last_s.source], span(last_s)),
        weak=not any(p.strong for p in best),
    )


def _extended(
    item: Alignment,
    group: Sequence[SentencePair],
    edges: Mapping[int, Sequence[SentencePair]],
    query: Sequence[SentenceRecord],
    source: Mapping[int, Span],
    config: DetectorConfig,
) -> Alignment:
    """``item`` grown at both ends by the edge pairs of its document (``edges`` by query
    sentence; step 4 of the module docstring)."""
    if not edges:
        return item
    best = _best_pairs(group)
    first_q, last_q = min(p.query for p in best), max(p.query for p in best)
    first_s, last_s = min(p.source for p in best), max(p.source for p in best)
    reach, beyond = config.extension_gap + 1, config.max_source_gap + 1
    passage = item.passage
    start, end, source_start, source_end = (
        passage.start, passage.end, passage.source_start, passage.source_end
    )  # fmt: skip
    head_q, head_s, tail_q, tail_s = (
        item.query_head, item.source_head, item.query_tail, item.source_tail
    )  # fmt: skip
    ahead = range(last_q + 1, min(last_q + reach + 1, len(query)))
    while pair := _edge_pair(edges, ahead, last_s - 1, last_s + beyond, source):
        last_q, last_s = pair.query, max(last_s, pair.source)
        own, partner = (query[last_q].start, query[last_q].end), source[pair.source]
        end, tail_q = own[1], Border(own, partner)
        if partner[1] > source_end:
            source_end, tail_s = partner[1], Border(partner, own)
        ahead = range(last_q + 1, min(last_q + reach + 1, len(query)))
    behind = range(first_q - 1, max(first_q - reach - 1, -1), -1)
    while pair := _edge_pair(edges, behind, first_s - beyond, first_s + 1, source):
        first_q, first_s = pair.query, min(first_s, pair.source)
        own, partner = (query[first_q].start, query[first_q].end), source[pair.source]
        start, head_q = own[0], Border(own, partner)
        if partner[0] < source_start:
            source_start, head_s = partner[0], Border(partner, own)
        behind = range(first_q - 1, max(first_q - reach - 1, -1), -1)
    if (start, end) == (passage.start, passage.end):
        return item
    grown = Passage(passage.source, start, end, source_start, source_end, passage.score)
    return replace(
        item, passage=grown, query_head=head_q, source_head=head_s, query_tail=tail_q,
        source_tail=tail_s, core=item,
    )  # fmt: skip


def _edge_pair(
    edges: Mapping[int, Sequence[SentencePair]],
    sentences: range,
    lowest: int,
    highest: int,
    source: Mapping[int, Span],
) -> SentencePair | None:
    """The best-scoring edge pair of the nearest of the query ``sentences`` that has one whose
    source sentence lies in ``lowest..highest``."""
    for sentence in sentences:
        found = [
            p
            for p in edges.get(sentence, ())
            if lowest <= p.source <= highest and p.source in source
        ]
        if found:
            return max(found, key=lambda p: (p.score, -p.source))
    return None


def _merged(a: Alignment, b: Alignment) -> Alignment:
    p, q = a.passage, b.passage
    passage = Passage(
        p.source,
        min(p.start, q.start),
        max(p.end, q.end),
        min(p.source_start, q.source_start),
        max(p.source_end, q.source_end),
        max(p.score, q.score),
    )
    return Alignment(
        passage,
        a.strength + b.strength,
        a.query_head if p.start <= q.start else b.query_head,
        a.source_head if p.source_start <= q.source_start else b.source_head,
        a.query_tail if p.end >= q.end else b.query_tail,
        a.source_tail if p.source_end >= q.source_end else b.source_tail,
        weak=a.weak and b.weak,
    )


def _merge_overlapping(alignments: list[Alignment]) -> list[Alignment]:
    merged: list[Alignment] = []
    for item in sorted(alignments, key=lambda a: a.passage):
        if merged:
            last = merged[-1].passage
            p = item.passage
            if (
                p.start < last.end
                and p.source_start < last.source_end
                and (p.source_end > last.source_start)
            ):
                merged[-1] = _merged(merged[-1], item)
                continue
        merged.append(item)
    return merged


def follows(first: Passage, second: Passage, join_chars: int) -> bool:
    """Whether ``second`` (starting no earlier) overlaps ``first`` on both sides, or continues
    it in order on both sides: within ``join_chars`` characters, or across gaps of nearly the
    same length on both sides (up to ``4 * join_chars``) — the signature of one copy whose
    middle sentences were too noisy to match."""
    if first.source != second.source:
        return False
    overlap = second.start < first.end and (
        second.source_start < first.source_end and first.source_start < second.source_end
    )
    gap = second.start - first.end
    source_gap = second.source_start - first.source_end
    if overlap or second.source_end < first.source_end:
        return overlap
    if second.source_start < first.source_start:
        # The source of the second begins before the first's: not a continuation in order
        # (a passage maps one monotone stretch to one monotone stretch).
        return False
    if gap <= join_chars and -join_chars <= source_gap <= join_chars:
        return True
    widest = max(gap, source_gap)
    return (
        0 <= min(gap, source_gap)
        and widest <= 4 * join_chars
        and (abs(gap - source_gap) <= 0.1 * widest + 10)
    )


def _join_in_order(alignments: list[Alignment], join_chars: int) -> list[Alignment]:
    joined: list[Alignment] = []
    for item in sorted(alignments, key=lambda a: a.passage):
        if joined and follows(joined[-1].passage, item.passage, join_chars):
            joined[-1] = _merged(joined[-1], item)
        else:
            joined.append(item)
    return joined


def _one_source_region(alignments: list[Alignment]) -> list[Alignment]:
    kept: list[Alignment] = []
    for item in sorted(alignments, key=lambda a: (-a.strength, a.passage)):
        p = item.passage
        if all(p.end <= k.passage.start or k.passage.end <= p.start for k in kept):
            kept.append(item)
    return sorted(kept, key=lambda a: a.passage)


def align(
    document: int,
    pairs: Sequence[SentencePair],
    query: Sequence[SentenceRecord],
    source_spans: Mapping[int, Span],
    config: DetectorConfig,
) -> list[Alignment]:
    """Copied passages between the query and source ``document`` from their copied pairs.

    ``source_spans`` must hold the character span of every source sentence in ``pairs``.
    """
    core = [pair for pair in pairs if not pair.edge]
    # A sentence copied from somewhere in this source belongs there, not to a neighbour's edge.
    placed = {pair.query for pair in core}
    edges: dict[int, list[SentencePair]] = {}
    for pair in pairs:
        if pair.edge and pair.query not in placed:
            edges.setdefault(pair.query, []).append(pair)
    alignments: list[Alignment] = []
    for cluster in cluster_pairs(core, config):
        for group in split_at_source_gaps(cluster, config):
            item = _alignment(document, group, query, source_spans, config)
            if item is not None:
                alignments.append(_extended(item, group, edges, query, source_spans, config))
    # Resolve competing source regions first, so a dropped competitor never sits between two
    # pieces of one copy when they are joined.
    kept = _one_source_region(_merge_overlapping(alignments))
    return _join_in_order(kept, config.join_chars)
