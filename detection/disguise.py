"""Disguised copies of one document pair: seeding, extension, summary mode, filtering.

The text-alignment stage after the index (Sanchez-Perez, Gelbukh and Sidorov, PAN 2014,
designed here anew): the Low-IDF-Sig index names the candidate sources; for each candidate
the two texts are compared as bags of normalised terms (:mod:`detection.seeding`), seeds are
extended into fragments with gaps that adapt to the pair (:mod:`detection.extension`), and

- summary mode: a summary condenses a long source span into a short passage, so its seeds
  lie far apart on the source side.  Looser seeds (``summary_seed``) are extended a second
  time with the wide ``summary_gap`` on the source side and joined on the query side; when
  the fragments found so cover at least ``summary_ratio`` times more source than query
  characters and consecutive summary sentences step far through the source (median step at
  least ``summary_stride`` units, where a copy read in order steps by one) and their best
  seeds reach across their source sides (``summary_spread``), and a logistic model of six
  measures (:func:`summary_evidence`, ``summary_model``) believes each one a summary, the
  pair is a summary and those fragments are taken (when the model refuses, the ordinary
  fragments inside a refused summary's query side are joined into one);
- filtering: fragments shorter than ``min_fragment_terms`` on either side are dropped, and
  so are fragments resting on one seed less alike than ``single_cosine``;
- kinds: a passage whose term sequences agree almost entirely (difflib ratio at least
  ``verbatim_ratio``) is ``verbatim``, a passage of summary mode ``summary``, any other
  ``edited``; its score is the cosine of its joined fragments.

:func:`merge_passages` combines these passages with the Low-IDF-Sig ones of the same source,
and :func:`join_neighbours` joins the pieces of one copy that follow each other closely.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher

from detection.config import DetectorConfig
from detection.extension import Fragment, extend_seeds, resolve_overlaps, source_span
from detection.lexicon import english_synonyms, is_han, terms
from detection.model import Passage, PassageKind
from detection.refine import WordView
from detection.seeding import (
    CodedUnits,
    PairSpace,
    QuerySide,
    Seed,
    Synonyms,
    Units,
    UnitSimilarities,
    coded_units,
    pair_similarities,
    pair_space,
    seeds_above,
    unit_similarities,
)

__all__ = [
    "align_units", "align_many", "closest_summaries", "copied_once", "exact_kinds",
    "join_neighbours", "merge_passages", "not_tiny", "passage_kind", "reached", "synonyms_of",
    "summary_evidence", "weigh_summaries",
]  # fmt: skip


def synonyms_of(config: DetectorConfig) -> Synonyms:
    """The synonyms seeding folds towards the query's terms (``config.english_synonyms``)."""
    return english_synonyms() if config.english_synonyms else {}


def _fragments(
    seeds: Sequence[Seed], space: PairSpace, query_gap: int, source_gap: int, config: DetectorConfig
) -> list[Fragment]:
    found = extend_seeds(
        seeds,
        space,
        query_gap=query_gap,
        source_gap=source_gap,
        least_gap=config.least_gap,
        threshold=config.fragment_cosine,
        trim=config.source_trim,
    )
    return resolve_overlaps(found, space, threshold=config.fragment_cosine, trim=config.source_trim)


def _long_enough(fragment: Fragment, query: Units, source: Units, least: int) -> bool:
    """Whether both sides hold at least ``least`` terms (terms, not characters: a Chinese
    character carries more than a Latin one)."""
    terms = _term_count(query, fragment.query), _term_count(source, fragment.source)
    return min(terms) >= least


def _term_count(units: Units, span: tuple[int, int]) -> int:
    return sum(len(units.terms[i]) for i in range(span[0], span[1] + 1))


def _supported(fragment: Fragment, single_cosine: float, joined_cosine: float | None) -> bool:
    """Whether a fragment rests on seeds of two units on each side, or has a seed at least
    ``single_cosine`` alike, or seeds one unit on one side with several on the other that
    joined are at least ``joined_cosine`` alike: two sentences of unrelated texts on one
    topic share a third of their terms now and then (and a long one shares as much with two
    others), a copied sentence keeps more, and a copy whose edits merged its sentences into
    one long unit keeps more of them together than of each."""
    queries = len({s.query for s in fragment.seeds})
    sources = len({s.source for s in fragment.seeds})
    if min(queries, sources) > 1 or max(seed.cosine for seed in fragment.seeds) >= single_cosine:
        return True
    return (
        joined_cosine is not None
        and max(queries, sources) > 1
        and (fragment.similarity >= joined_cosine)
    )


def _is_summary(
    fragments: Sequence[Fragment], query: Units, source: Units, ratio: float, trim: int | None
) -> bool:
    """Whether ``fragments`` cover ``ratio`` times more source than query characters, their
    source sides counted as :func:`~detection.extension.source_span` with ``trim`` takes them:
    a summary's best seeds lie far apart in its source, while a paraphrase read in order
    gathers a wide source side only from the stray seeds a loose threshold lets in."""
    if not fragments:
        return False
    query_chars = sum(_length(query.chars(*f.query)) for f in fragments)
    source_chars = sum(_length(source.chars(*source_span(f.seeds, trim))) for f in fragments)
    return source_chars >= ratio * query_chars


def _length(span: tuple[int, int]) -> int:
    return span[1] - span[0]


def passage_kind(
    query_terms: Sequence[str], source_terms: Sequence[str], summary: bool, verbatim_ratio: float
) -> PassageKind:
    """``summary`` in summary mode, ``verbatim`` when the term sequences agree at least
    ``verbatim_ratio`` (difflib's 2·matches / total), else ``edited``."""
    if summary:
        return "summary"
    matcher = SequenceMatcher(None, query_terms, source_terms, autojunk=False)
    return "verbatim" if matcher.ratio() >= verbatim_ratio else "edited"


def _terms(units: Units, span: tuple[int, int]) -> list[str]:
    return [t for i in range(span[0], span[1] + 1) for t in units.terms[i]]


def _joined(fragments: Sequence[Fragment], gap: int, space: PairSpace) -> list[Fragment]:
    """Summary fragments within ``gap`` units of each other on the query side joined into one
    (a summary condenses one source span into one passage, sentence by sentence)."""
    joined: list[Fragment] = []
    for fragment in sorted(fragments):
        last = joined[-1] if joined else None
        if last is not None and fragment.query[0] - last.query[1] - 1 <= gap:
            joined[-1] = _covering([last, fragment], space)
        else:
            joined.append(fragment)
    return joined


def _covering(fragments: Sequence[Fragment], space: PairSpace) -> Fragment:
    """One fragment over the query and source units of ``fragments``, with all their seeds."""
    query = (min(f.query[0] for f in fragments), max(f.query[1] for f in fragments))
    source = (min(f.source[0] for f in fragments), max(f.source[1] for f in fragments))
    seeds = tuple(seed for f in fragments for seed in f.seeds)
    return Fragment(query, source, space.fragment_cosine(query, source), seeds)


def _summary_fragments(
    space: PairSpace,
    similarities: UnitSimilarities,
    query: Units,
    source: Units,
    config: DetectorConfig,
) -> list[Fragment]:
    """Fragments of summary mode: looser seeds, a wide source gap, joined on the query side;
    empty unless they cover ``summary_ratio`` times more source than query characters."""
    seeds = seeds_above(similarities, cosine=config.summary_seed, dice=config.summary_seed)
    found = extend_seeds(
        seeds,
        space,
        query_gap=config.fragment_gap,
        source_gap=config.summary_gap,
        least_gap=config.least_gap,
        threshold=config.summary_cosine,
    )
    found = _joined(
        resolve_overlaps(found, space, threshold=config.summary_cosine), config.fragment_gap, space
    )
    least = config.min_fragment_terms
    found = [
        f
        for f in found
        if _long_enough(f, query, source, least)
        and len({seed.source for seed in f.seeds}) >= config.summary_sources
        and f.query[1] - f.query[0] + 1 >= config.summary_units
        and _condenses(f, config)
    ]
    trim = config.source_trim
    return found if _is_summary(found, query, source, config.summary_ratio, trim) else []


def _condenses(fragment: Fragment, config: DetectorConfig) -> bool:
    """Whether at least ``summary_best_units`` sentences of a summary fragment each have a
    seed at least ``summary_best`` alike: a summary condenses source sentences closely,
    pages on one subject share only terms scattered over many sentences (a title both share,
    one close sentence among loose ones, is left to the summary model's length measure)."""
    return _close_units(fragment, config.summary_best) >= config.summary_best_units


def _close_units(fragment: Fragment, least: float) -> int:
    """How many query units of ``fragment`` have a seed at least ``least`` alike."""
    return len({seed.query for seed in fragment.seeds if seed.cosine >= least})


def _best_seeds(fragment: Fragment) -> list[Seed]:
    """The best seed of each seeded query unit of ``fragment``, in query order."""
    best: dict[int, Seed] = {}
    for seed in fragment.seeds:
        if seed.query not in best or seed.cosine > best[seed.query].cosine:
            best[seed.query] = seed
    return [best[unit] for unit in sorted(best)]


def _spread(fragment: Fragment) -> float:
    """Share of a summary fragment's source units between its outermost best seeds: a
    summary's sentences each condense a different stretch of its source, so their best seeds
    reach across it; a paraphrase read in order gathers a wide source side around one close
    stretch only from the weak seeds of topical neighbours."""
    sources = [seed.source for seed in _best_seeds(fragment)]
    return (max(sources) - min(sources) + 1) / (fragment.source[1] - fragment.source[0] + 1)


def _dense(fragment: Fragment, least: float) -> float:
    """Share of a fragment's query units with a seed at least ``least`` alike."""
    return _close_units(fragment, least) / (fragment.query[1] - fragment.query[0] + 1)


def _stride(fragment: Fragment) -> float:
    """Median source distance between the best seeds of consecutive seeded query units: about
    1 for a copy read in order (paraphrase, translation), large for a summary, whose sentences
    each condense a different stretch of the source."""
    ordered = [seed.source for seed in _best_seeds(fragment)]
    steps = sorted(abs(b - a) for a, b in zip(ordered, ordered[1:], strict=False))
    return float(steps[len(steps) // 2]) if steps else 0.0


def summary_evidence(
    fragment: Fragment, ordinary: Sequence[Fragment], query: Units
) -> tuple[float, ...]:
    """What tells a summary fragment from a paraphrase that summary mode stretched: the
    similarity of the best ordinary fragment (normal mode, filtered) overlapping its query
    side (a paraphrase read in order has a close one); the order agreement (Kendall tau) of
    its sentences' best seeds with the source (a summary follows its source); the share of
    its sentences with a seed; its seeds per seeded sentence (topical neighbours seed each
    sentence many times, loosely); its own similarity; and the logarithm of its terms in
    the query (a copy that dropped words at random condenses its source too, but a
    sentence or two of it against loose neighbours is all summary mode sees of it, while a
    summary retells a whole stretch)."""
    first, last = fragment.query
    best = _best_seeds(fragment)
    overlapping = [f.similarity for f in ordinary if f.query[0] <= last and first <= f.query[1]]
    return (
        max(overlapping, default=0.0),
        _kendall([seed.source for seed in best]),
        len(best) / (last - first + 1),
        len(fragment.seeds) / len(best),
        fragment.similarity,
        math.log(max(1, _term_count(query, fragment.query))),
    )


def _kendall(values: Sequence[int]) -> float:
    """Kendall's tau-a of ``values`` against their order: 1 in order, -1 reversed, 0 when
    no two differ."""
    agree = disagree = 0
    for i, a in enumerate(values):
        for b in values[i + 1 :]:
            agree += b > a
            disagree += b < a
    return (agree - disagree) / max(1, agree + disagree)


def _believed(evidence: Sequence[float], config: DetectorConfig) -> bool:
    """Whether the logistic ``summary_model`` gives ``evidence`` at least ``summary_belief``."""
    model = config.summary_model
    if model is None:
        return True
    z = model[0] + sum(w * x for w, x in zip(model[1:], evidence, strict=True))
    return 1.0 / (1.0 + math.exp(-z)) >= config.summary_belief


def _grown(
    fragments: Sequence[Fragment], space: PairSpace, query: Units, source: Units, least: float
) -> list[Fragment]:
    """Fragments grown at both ends while the next units on both sides are at least ``least``
    alike (tf-isf cosine): the first and last sentences of a copy are edited most, too much
    for a seed, and still share more than unrelated neighbours do.  A fragment stops at
    another fragment's units."""
    taken = {q for f in fragments for q in range(f.query[0], f.query[1] + 1)}
    grown = []
    for f in fragments:
        (q0, q1), (s0, s1) = f.query, f.source
        while q0 > 0 and s0 > 0 and q0 - 1 not in taken and _alike(space, q0 - 1, s0 - 1, least):
            q0, s0 = q0 - 1, s0 - 1
            taken.add(q0)
        while (
            q1 + 1 < len(query)
            and s1 + 1 < len(source)
            and q1 + 1 not in taken
            and _alike(space, q1 + 1, s1 + 1, least)
        ):
            q1, s1 = q1 + 1, s1 + 1
            taken.add(q1)
        grown.append(f._replace(query=(q0, q1), source=(s0, s1)))
    return grown


def _alike(space: PairSpace, query_unit: int, source_unit: int, least: float) -> bool:
    return space.fragment_cosine((query_unit, query_unit), (source_unit, source_unit)) >= least


def _extractive(fragments: Sequence[Fragment], config: DetectorConfig) -> bool:
    """Whether summary ``fragments`` beside a verbatim copy make an extractive summary: at
    least ``summary_dense`` of each one's sentences seeded at ``apart_cosine`` (a summary
    that copies some of its sentences word for word, each from elsewhere in the source; a
    verbatim copy read in order, with loose seeds around it, has one close stretch)."""
    least = config.summary_dense
    return least is not None and all(_dense(f, config.apart_cosine) >= least for f in fragments)


def _firm(fragment: Fragment, config: DetectorConfig) -> bool:
    """Whether at least ``apart_units`` query units of ``fragment`` have a seed of cosine
    ``apart_cosine``."""
    return _close_units(fragment, config.apart_cosine) >= config.apart_units


def align_units(
    document: int,
    query: Units | QuerySide,
    source: Units,
    config: DetectorConfig,
    *,
    beside_verbatim: bool = False,
) -> list[Passage]:
    """Passages of the query copied from source ``document`` in disguise (module docstring);
    ``query`` may be its :func:`detection.seeding.query_side`, made once for many sources.

    ``beside_verbatim``: the pair holds a verbatim copy (:func:`exact_kinds`); only firm
    fragments (:func:`_firm`) are wanted, and only an extractive summary
    (:func:`_extractive`)."""
    space = pair_space(query, source, synonyms_of(config))
    query = query.units if isinstance(query, QuerySide) else query
    similarities = unit_similarities(space)
    return _pair_passages(document, query, source, space, similarities, config, beside_verbatim)


def align_many(
    documents: Sequence[int],
    query: QuerySide,
    sources: Sequence[Units],
    config: DetectorConfig,
    coded: Sequence[CodedUnits] | None = None,
    beside_verbatim: Sequence[bool] | None = None,
) -> list[list[Passage]]:
    """:func:`align_units` of the query with each of ``sources`` (source ``documents``), the
    same passages, with the pairs' similarities computed together
    (:func:`detection.seeding.pair_similarities`); ``coded``: the sources'
    :func:`detection.seeding.coded_units`, if made already; ``beside_verbatim``: per source,
    as in :func:`align_units`."""
    coded = coded_units(query, sources, synonyms_of(config)) if coded is None else coded
    beside = [False] * len(sources) if beside_verbatim is None else beside_verbatim
    return [
        _pair_passages(document, query.units, source, space, similarities, config, verbatim)
        for document, source, (space, similarities), verbatim in zip(
            documents, sources, pair_similarities(query, coded), beside, strict=True
        )
    ]


def _ordinary(
    space: PairSpace,
    similarities: UnitSimilarities,
    query: Units,
    source: Units,
    config: DetectorConfig,
) -> list[Fragment]:
    """Fragments of normal mode, long enough and supported."""
    seeds = seeds_above(similarities, cosine=config.seed_cosine, dice=config.seed_dice)
    fragments = _fragments(seeds, space, config.fragment_gap, config.fragment_gap, config)
    least = config.min_fragment_terms
    return [
        f
        for f in fragments
        if _long_enough(f, query, source, least)
        and _supported(f, config.single_cosine, config.joined_cosine)
    ]


def _summaries(
    space: PairSpace,
    similarities: UnitSimilarities,
    query: Units,
    source: Units,
    ordinary: Sequence[Fragment],
    config: DetectorConfig,
) -> list[tuple[Fragment, tuple[float, ...]]]:
    """The fragments of summary mode with their :func:`summary_evidence`, when they pass its
    rules (stride and spread) and so await the model's word; else none."""
    condensed = _summary_fragments(space, similarities, query, source, config)
    if not all(
        _stride(f) >= config.summary_stride and _spread(f) >= config.summary_spread
        for f in condensed
    ):
        return []
    return [(f, summary_evidence(f, ordinary, query)) for f in condensed]


def weigh_summaries(
    query: Units, source: Units, config: DetectorConfig
) -> list[tuple[tuple[int, int], tuple[int, int], tuple[float, ...]]]:
    """The query and source character spans and the :func:`summary_evidence` of the summary
    fragments of one pair that only ``summary_model`` may still refuse (what
    ``python -m benchmarks.summary_model`` fits the model on)."""
    space = pair_space(query, source, synonyms_of(config))
    similarities = unit_similarities(space)
    ordinary = _ordinary(space, similarities, query, source, config)
    return [
        (query.chars(*f.query), source.chars(*f.source), evidence)
        for f, evidence in _summaries(space, similarities, query, source, ordinary, config)
    ]


def _gathered(
    fragments: Sequence[Fragment], refused: Sequence[Fragment], space: PairSpace
) -> list[Fragment]:
    """``fragments`` (normal mode) with those lying inside the query side of one of the
    ``refused`` summary fragments joined into one, when there are several: the model refused
    the summary's wide source side, not the copy, and a summary it refused comes out of
    normal mode in pieces, one per sentence close to its source."""
    found = list(fragments)
    for summary in refused:
        first, last = summary.query
        inside = [f for f in found if first <= f.query[0] and f.query[1] <= last]
        if len(inside) < 2:
            continue
        found = sorted([f for f in found if f not in inside] + [_covering(inside, space)])
    return found


def reached(fragment: Fragment, units: int) -> Fragment:
    """A summary fragment with its source side widened at each end by the span between its
    first and last source units over the number of distinct source units its sentences'
    best seeds take, less one (within the ``units`` of the source): a summary condenses a
    stretch of its source, and the sentences it draws on, taken as spread evenly over that
    stretch, leave on average that much of it before the first and after the last (the
    unbiased estimate of a uniform range from its sample, as in the German tank problem)."""
    first, last = fragment.source
    drawn = len({seed.source for seed in _best_seeds(fragment)})
    if drawn < 2:
        return fragment
    margin = round((last - first) / (drawn - 1))
    return fragment._replace(source=(max(0, first - margin), min(units - 1, last + margin)))


def _pair_passages(
    document: int,
    query: Units,
    source: Units,
    space: PairSpace,
    similarities: UnitSimilarities,
    config: DetectorConfig,
    beside_verbatim: bool,
) -> list[Passage]:
    fragments = _ordinary(space, similarities, query, source, config)
    weighed = _summaries(space, similarities, query, source, fragments, config)
    summary = bool(weighed) and all(_believed(evidence, config) for _, evidence in weighed)
    condensed = [fragment for fragment, _ in weighed]
    if summary and beside_verbatim and not _extractive(condensed, config):
        return []
    if summary:
        fragments = condensed
        if config.summary_reach:
            fragments = [reached(f, len(source)) for f in fragments]
    else:
        if config.edge_cosine is not None:
            fragments = _grown(fragments, space, query, source, config.edge_cosine)
        fragments = _gathered(fragments, condensed, space)
    if beside_verbatim:
        fragments = [f for f in fragments if _firm(f, config)]
    passages = []
    for fragment in fragments:
        start, end = query.chars(*fragment.query)
        source_start, source_end = source.chars(*fragment.source)
        kind = passage_kind(
            _terms(query, fragment.query),
            _terms(source, fragment.source),
            summary,
            config.verbatim_ratio,
        )
        passages.append(
            Passage(document, start, end, source_start, source_end, fragment.similarity, kind)
        )
    return passages


def _overlap(a: Passage, b: Passage, query_only: bool) -> bool:
    """Whether ``a`` and ``b`` overlap on both sides (on the query side: a summary takes in
    the exact pieces of its sentences wherever in its source they are)."""
    on_query = a.start < b.end and b.start < a.end
    return on_query and (
        query_only or (a.source_start < b.source_end and b.source_start < a.source_end)
    )


def _common(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Characters spans ``a`` and ``b`` share (negative: how far apart they are)."""
    return min(a[1], b[1]) - max(a[0], b[0])


def _union(passage: Passage, others: Sequence[Passage], least: int) -> Passage:
    """``others`` (exact passages) grown to ``passage`` (a disguised one) where it reaches at
    least ``least`` characters further: a unit border a few words beyond a word-exact border
    is a sentence annexed to its unit, not more of the copy."""
    start, end = min(p.start for p in others), max(p.end for p in others)
    source_start = min(p.source_start for p in others)
    source_end = max(p.source_end for p in others)
    return replace(
        passage,
        start=passage.start if start - passage.start >= least else start,
        end=passage.end if passage.end - end >= least else end,
        source_start=(
            passage.source_start if source_start - passage.source_start >= least else source_start
        ),
        source_end=passage.source_end if passage.source_end - source_end >= least else source_end,
    )


def exact_kinds(
    passages: Sequence[Passage], query: WordView, source: WordView, config: DetectorConfig
) -> tuple[list[Passage], bool]:
    """Low-IDF-Sig ``passages`` of one source with their kind (:func:`passage_kind` of the
    terms of their words) and, as score, the cosine of their two sides' term counts (on the
    scale of a disguised passage's score, which a report shows beside it: the mean sentence
    Jaccard of Low-IDF-Sig put a word-for-word copy at a third), and whether the pair is a
    verbatim copy: one of them verbatim with at least ``verbatim_terms`` terms (the
    meta-rule of Sanchez-Perez et al., PAN 2015)."""
    found = []
    verbatim = False
    for p in passages:
        first, last = query.word_range((p.start, p.end))
        source_first, source_last = source.word_range((p.source_start, p.source_end))
        query_terms = terms(list(query.words[first:last]))
        source_terms = terms(list(source.words[source_first:source_last]))
        kind = passage_kind(query_terms, source_terms, False, config.verbatim_ratio)
        verbatim |= kind == "verbatim" and len(query_terms) >= config.verbatim_terms
        score = _bag_cosine(query_terms, source_terms) or p.score
        found.append(replace(p, kind=kind, score=score))
    return found, verbatim


def _bag_cosine(a: Sequence[str], b: Sequence[str]) -> float:
    """Cosine of the term counts of ``a`` and ``b`` (0 when either is empty)."""
    first, second = Counter(a), Counter(b)
    dot = sum(count * second[term] for term, count in first.items())
    norm = math.sqrt(sum(c * c for c in first.values()) * sum(c * c for c in second.values()))
    return dot / norm if norm else 0.0


def not_tiny(passage: Passage, query: WordView, least: int) -> bool:
    """Whether a passage without Chinese words holds at least ``least`` terms.

    Asked of the passages of a verbatim pair: beside a long verbatim copy, short English
    passages of the same source are mostly text both pages share (headings, names, a
    quotation), not more copying (Sanchez-Perez et al. keep only the long common substrings
    of a verbatim pair).  A short Chinese passage is left to the Low-IDF-Sig rules, which
    already ask a one-sentence copy for mass."""
    first, last = query.word_range((passage.start, passage.end))
    words = list(query.words[first:last])
    if any(is_han(word) for word in words):
        return True
    return len(terms(words)) >= least


def _edited_around(
    verbatim: Passage, disguised: Sequence[Passage], fixed: Sequence[Passage]
) -> bool:
    """Whether a disguised passage overlaps ``verbatim`` on both sides and is mostly edited
    text: the ``fixed`` verbatim passages it overlaps cover less than half of its query side."""
    for d in disguised:
        if d.kind == "summary" or not _overlap(d, verbatim, False):
            continue
        inside = sum(
            _common((d.start, d.end), (k.start, k.end)) for k in fixed if _overlap(d, k, True)
        )
        if 2 * inside < d.end - d.start:
            return True
    return False


def merge_passages(
    exact: Sequence[Passage],
    disguised: Sequence[Passage],
    verbatim: bool,
    least: int,
    pieces: Sequence[Passage] = (),
) -> list[Passage]:
    """The Low-IDF-Sig passages (``exact``: word-exact borders, kinds set) and the disguised
    ones of the same source, without overlaps on the query side.

    In a ``verbatim`` pair (:func:`exact_kinds`) its verbatim exact passages stay as they
    are, disguised ones (:func:`align_units` ``beside_verbatim``) overlapping them on the
    query side are dropped (but a disguised passage that is mostly edited text takes in the
    ``pieces`` it overlaps on both sides: verbatim passages too short to stand as copies,
    the phrases a translation keeps word for word), and the rest merge as in any pair: a
    machine translation keeps a sentence or two word for word beside the paraphrased rest.
    A summary there (extractive: :func:`_extractive`) takes in the verbatim passages it
    overlaps, its copied sentences.
    A disguised passage overlapping exact ones on both sides takes them in (it found the
    edited rest of the copy; their word-exact borders stay where it reaches less than
    ``least`` characters further); where it overlaps others on the query side only (aligned
    with other source text), the longer side wins."""
    fixed: list[Passage] = []
    if verbatim:
        fixed = [k for k in exact if k.kind == "verbatim"]
        exact = [k for k in exact if k.kind != "verbatim"]
        summaries = [d for d in disguised if d.kind == "summary"]
        copied = [k for k in fixed if any(_overlap(d, k, True) for d in summaries)]
        copied += [k for k in pieces if k in fixed and _edited_around(k, disguised, fixed)]
        fixed = [k for k in fixed if k not in copied]
        exact += copied  # a summary takes its copied sentences in, as any disguised passage
        disguised = [
            d
            for d in disguised
            if d.kind == "summary" or all(not _overlap(d, k, True) for k in fixed)
        ]
    kept = list(exact)
    for passage in sorted(disguised, key=lambda p: (-(p.end - p.start), p.start)):
        inside = [k for k in kept if _overlap(passage, k, passage.kind == "summary")]
        if inside:
            kept = [k for k in kept if k not in inside]
            passage = _union(passage, inside, least)
        blocking = [k for k in kept if k.start < passage.end and passage.start < k.end]
        if sum(k.end - k.start for k in blocking) < passage.end - passage.start:
            kept = [k for k in kept if k not in blocking] + [passage]
        else:
            kept.extend(inside)
    return sorted([*fixed, *kept], key=lambda p: (p.start, p.end, p.source, p.source_start))


def copied_once(passages: Sequence[Passage], share: float) -> list[Passage]:
    """The passages of one source without the edited and summary ones whose source side
    lies, for at least ``share`` of it, in the source side of a stronger passage (score
    times query length): where other query text aligns loosely to source text a stronger
    passage already copies, it restates what the document copied once (an introduction's
    copy echoed in a conclusion, text near a copy on the same subject), not a second copy.
    A verbatim repeat is a second copy and stays (a paragraph pasted twice)."""
    kept: list[Passage] = []
    for passage in sorted(passages, key=lambda p: (-p.score * (p.end - p.start), p.start)):
        own = passage.source_end - passage.source_start
        if passage.kind == "verbatim" or all(
            _common((passage.source_start, passage.source_end), (k.source_start, k.source_end))
            < share * own
            for k in kept
        ):
            kept.append(passage)
    return sorted(kept, key=lambda p: (p.start, p.end))


def closest_summaries(passages: Sequence[Passage]) -> list[Passage]:
    """``passages`` (of several sources) without the summaries whose query side, for more
    than half of the shorter of the two, a closer summary of another source (higher score;
    equal: the lower source id) claims: a summary retells one text, while a text on a
    subject that several sources cover alike reads as a summary of each (a short article
    on a disorder against three long ones). The closest keeps the stretch, so a summary of
    a text the archive holds twice is still shown, once."""
    summaries = [p for p in passages if p.kind == "summary"]

    def beaten(passage: Passage) -> bool:
        return any(
            other.source != passage.source
            and (other.score, -other.source) > (passage.score, -passage.source)
            and _common((passage.start, passage.end), (other.start, other.end))
            > 0.5 * min(passage.end - passage.start, other.end - other.start)
            for other in summaries
        )

    return [p for p in passages if p.kind != "summary" or not beaten(p)]


class _Borders:
    """Where the units of a text start and end, for counting the units between two
    passages."""

    def __init__(self, units: Units) -> None:
        self.starts = [span[0] for span in units.spans]
        self.ends = [span[1] for span in units.spans]

    def between(self, end: int, start: int) -> int:
        """How many units lie wholly between characters ``end`` and ``start``."""
        return max(0, bisect_right(self.ends, start) - bisect_left(self.starts, end))


def join_neighbours(
    passages: Sequence[Passage], query: Units, source: Units, gap: int
) -> list[Passage]:
    """The passages of one source with each joined to the next when it follows on both
    sides, at most ``gap`` whole units further on each and not both verbatim: the pieces of
    one copy that seeds missed the middle of, that validation split, or that the exact and
    the disguised stage found apart (a translation's verbatim sentence beside its
    paraphrased rest). Two verbatim passages keep their exact borders; the text between
    them was not copied word for word. A joined passage's score is its pieces'
    length-weighted mean; its kind theirs when they agree, else a summary when one is, else
    edited."""
    if len(passages) < 2:
        return list(passages)
    borders = _Borders(query), _Borders(source)
    joined: list[Passage] = []
    for passage in sorted(passages, key=lambda p: (p.start, p.end)):
        if joined and _neighbours(joined[-1], passage, borders, gap):
            last = joined[-1]
            kinds = {last.kind, passage.kind}
            kind: PassageKind = (
                last.kind if len(kinds) == 1 else "summary" if "summary" in kinds else "edited"
            )
            weights = (last.end - last.start, passage.end - passage.start)
            score = (last.score * weights[0] + passage.score * weights[1]) / sum(weights)
            joined[-1] = replace(
                last,
                end=passage.end,
                source_start=min(last.source_start, passage.source_start),
                source_end=passage.source_end,
                score=score,
                kind=kind,
            )
        else:
            joined.append(passage)
    return joined


def _neighbours(a: Passage, b: Passage, borders: tuple[_Borders, _Borders], gap: int) -> bool:
    query, source = borders
    return (
        not a.kind == b.kind == "verbatim"
        and a.end <= b.start
        and a.source_start <= b.source_start
        and a.source_end < b.source_end
        and query.between(a.end, b.start) <= gap
        and source.between(a.source_end, b.source_start) <= gap
    )
