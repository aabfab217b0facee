"""Extension of seeds into fragments (Sanchez-Perez, Gelbukh and Sidorov, PAN 2014).

1. Clustering: the seeds (unit pairs of :mod:`detection.seeding`) are sorted by their query
   unit and cut wherever more than ``query_gap`` units lie between two consecutive seeds;
   each group is then sorted and cut the same way on the source side (``source_gap``), and
   so on, alternating sides, until a cut leaves a group whole.  A copy is a run of seeds
   close together on *both* sides; gaps tolerate sentences that were edited beyond
   recognition, inserted or left out.
2. Validation: a cluster becomes a fragment (query units first..last, source units
   first..last; with ``trim`` the source side is only the span of each query unit's best
   seed, widened by other seeds at most ``trim`` units beyond it: a query sentence that also
   resembles a sentence a few units away would otherwise drag the source side there) when
   the cosine of its two joined fragments (:meth:`PairSpace.fragment_cosine`)
   exceeds ``threshold``; otherwise it is clustered again with both gaps one smaller, down to
   ``least_gap`` — the gaps adapt to each pair and each copy: dense seeds keep wide gaps,
   sparse accidental seeds are split until they fail.
3. Overlap resolution: of fragments overlapping on the query side the one with the higher
   quality is kept (the sum over its query units of their best seed cosine inside the
   fragment: long, well-matched fragments win over short or loose ones); the other keeps
   its seeds outside it, as a fragment again when still alike enough (two copies side by
   side share the sentence where one ends and the other begins).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from detection.seeding import PairSpace, Seed

__all__ = ["Fragment", "cluster_seeds", "extend_seeds", "resolve_overlaps", "source_span"]

Range = tuple[int, int]  # first and last unit, inclusive


class Fragment(NamedTuple):
    """Query units ``query`` copy source units ``source`` (inclusive ranges)."""

    query: Range
    source: Range
    similarity: float
    seeds: tuple[Seed, ...]

    @property
    def quality(self) -> float:
        best: dict[int, float] = {}
        for seed in self.seeds:
            best[seed.query] = max(best.get(seed.query, 0.0), seed.cosine)
        return sum(best.values())


def _cut(seeds: Sequence[Seed], side: int, gap: int) -> list[list[Seed]]:
    """``seeds`` sorted by unit on ``side`` (0 query, 1 source) and cut at larger gaps."""
    groups: list[list[Seed]] = []
    for seed in sorted(seeds, key=lambda s: (s[side], s[1 - side])):
        if groups and seed[side] - groups[-1][-1][side] - 1 <= gap:
            groups[-1].append(seed)
        else:
            groups.append([seed])
    return groups


def cluster_seeds(
    seeds: Sequence[Seed], query_gap: int, source_gap: int, side: int = 0, rounds: int = 0
) -> list[list[Seed]]:
    """Step 1: clusters of seeds close on both sides (alternating cuts until stable)."""
    groups = _cut(seeds, side, query_gap if side == 0 else source_gap)
    if len(groups) <= 1 and rounds > 0:
        return groups
    found: list[list[Seed]] = []
    for group in groups:
        found.extend(cluster_seeds(group, query_gap, source_gap, 1 - side, rounds + 1))
    return found


def source_span(cluster: Sequence[Seed], trim: int | None) -> Range:
    """Source units of a cluster: all of them, or (``trim``) the span of each query unit's
    best seed, widened step by step by source units at most ``trim`` beyond it."""
    if trim is None:
        return min(s.source for s in cluster), max(s.source for s in cluster)
    best: dict[int, Seed] = {}
    for seed in cluster:
        if seed.query not in best or seed.cosine > best[seed.query].cosine:
            best[seed.query] = seed
    first = min(s.source for s in best.values())
    last = max(s.source for s in best.values())
    units = sorted({s.source for s in cluster})
    for unit in reversed(units):
        if unit < first and first - unit <= trim:
            first = unit
    for unit in units:
        if unit > last and unit - last <= trim:
            last = unit
    return first, last


def _fragment(cluster: Sequence[Seed], space: PairSpace, trim: int | None) -> Fragment:
    query = (min(s.query for s in cluster), max(s.query for s in cluster))
    source = source_span(cluster, trim)
    return Fragment(query, source, space.fragment_cosine(query, source), tuple(cluster))


def extend_seeds(
    seeds: Sequence[Seed],
    space: PairSpace,
    *,
    query_gap: int,
    source_gap: int,
    least_gap: int,
    threshold: float,
    trim: int | None = None,
) -> list[Fragment]:
    """Steps 1 and 2: validated fragments of ``seeds``."""
    fragments: list[Fragment] = []
    for cluster in cluster_seeds(seeds, query_gap, source_gap):
        fragment = _fragment(cluster, space, trim)
        if fragment.similarity > threshold:
            fragments.append(fragment)
        elif query_gap > least_gap and source_gap > least_gap:
            fragments.extend(
                extend_seeds(
                    cluster, space, query_gap=query_gap - 1, source_gap=source_gap - 1,
                    least_gap=least_gap, threshold=threshold, trim=trim,
                )
            )  # fmt: skip
    return fragments


def resolve_overlaps(
    fragments: Sequence[Fragment],
    space: PairSpace | None = None,
    *,
    threshold: float = 0.0,
    trim: int | None = None,
) -> list[Fragment]:
    """Step 3: fragments that do not overlap on the query side, best quality first.  With
    the pair's ``space``, a fragment overlapping better ones keeps its seeds outside them
    (:func:`_outside`) instead of being dropped whole."""
    kept: list[Fragment] = []
    for fragment in sorted(fragments, key=lambda f: (-f.quality, f.query, f.source)):
        first, last = fragment.query
        if all(last < k.query[0] or k.query[1] < first for k in kept):
            kept.append(fragment)
        elif space is not None:
            kept.extend(_outside(fragment, kept, space, threshold, trim))
    return sorted(kept, key=lambda f: (f.query, f.source))


def _outside(
    fragment: Fragment,
    kept: Sequence[Fragment],
    space: PairSpace,
    threshold: float,
    trim: int | None,
) -> list[Fragment]:
    """The parts of ``fragment`` between the ``kept`` fragments it overlaps: its seeds outside
    them, cut where a kept fragment lies between two, each part a fragment again when still
    alike enough (two copies side by side in the query, from two places of the source, make
    two fragments that may share the sentence where one ends and the other begins)."""
    taken = [k.query for k in kept]
    parts: list[list[Seed]] = []
    for seed in sorted(fragment.seeds):
        if any(a <= seed.query <= b for a, b in taken):
            continue
        if parts and not any(parts[-1][-1].query < a <= seed.query for a, _ in taken):
            parts[-1].append(seed)
        else:
            parts.append([seed])
    found = [_fragment(part, space, trim) for part in parts]
    return [f for f in found if f.similarity > threshold]
