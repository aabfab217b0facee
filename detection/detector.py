"""Low-IDF-Sig copy detection: reader → sentence splitter → features → copy detection →
sequence matching, behind :func:`analyze`, :func:`detect` and :func:`compare`."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np

from detection.align import Alignment, align
from detection.borders import word_borders
from detection.config import DEFAULT_CONFIG, DetectorConfig
from detection.disguise import (
    align_many,
    closest_summaries,
    copied_once,
    exact_kinds,
    join_neighbours,
    merge_passages,
    not_tiny,
    synonyms_of,
)
from detection.errors import DetectionError
from detection.features import FeatureModel, feature_model
from detection.idf import load_idf_model
from detection.index import MemoryIndex, SentenceIndex
from detection.language import detect_language
from detection.lexicon import LEXICON_VERSION, cilin_groups, term
from detection.model import DocumentAnalysis, Passage, SentenceRecord
from detection.normalize import (
    NORMALIZE_VERSION,
    normalize_with_offsets,
    normalized_once,
    original_spans,
)
from detection.refine import WordView, refine_alignments, word_view
from detection.retrieval import term_candidates
from detection.scoring import QueryMatch, SentencePair, match_query
from detection.seeding import Units, coded_units, could_seed, query_side, text_units
from detection.sentences import SENTENCES_VERSION, split_sentences
from detection.vocabulary import document_features, document_features_and_terms
from detection.words import WORDS_VERSION, sentence_words

__all__ = [
    "analyze", "detect", "compare", "coverage", "model_version", "units_version", "warm_up",
    "UnitStore",
]  # fmt: skip


def model_version(config: DetectorConfig = DEFAULT_CONFIG) -> str:
    """The ``model_version`` of the analyses :func:`analyze` makes with ``config``: features of
    analyses with different versions are not comparable."""
    return feature_model(config).version


def analyze(text: str, config: DetectorConfig = DEFAULT_CONFIG) -> DocumentAnalysis:
    """Split ``text`` into sentences and extract their Low-IDF-Sig features.

    Sentence offsets refer to ``text`` itself; sentences without any word are left out, so
    ``sentences[i].index == i``.
    """
    if not isinstance(text, str):
        raise DetectionError(f"analyze() needs the document text as str, got {type(text)!r}")
    model = feature_model(config)
    records: list[SentenceRecord] = []
    terms: list[np.ndarray] = []  # with term retrieval: each word's term id, piece by piece
    for offset, piece in _pieces(text):
        whole = len(piece) == len(text)
        sentences, piece_terms = _piece_sentences(piece, model, config, whole=whole)
        for (start, end), features in sentences:
            records.append(SentenceRecord(len(records), offset + start, offset + end, features))
        if piece_terms is not None:
            terms.append(piece_terms)
    counted: tuple[tuple[int, int], ...] = ()
    if terms:
        words = np.concatenate(terms)
        ids, counts = np.unique(words[words != 0], return_counts=True)
        counted = tuple(zip(ids.tolist(), counts.tolist(), strict=True))
    return DocumentAnalysis(detect_language(text), model.version, tuple(records), counted)


# A text longer than this is analysed a piece at a time, cut at paragraph breaks: the
# intermediate offsets, words and whitespace runs of a piece (several times its size) are
# freed before the next one, so a 20 MB text needs its analysis and one piece's
# intermediates, not those of the whole text at once. Sentences never cross a paragraph
# break, so the sentences and features are those of the text analysed in one piece.
PIECE_CHARS = 250_000
# Where normalisation always leaves a paragraph break ("\n"), which ends every sentence: a
# blank line, or a line break after a Chinese sentence end (a CJK character before it).
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v\u3000]*\n|(?<=[。！？」』”])\n")


def _pieces(text: str, size: int = PIECE_CHARS) -> Iterable[tuple[int, str]]:
    """(offset, piece) of ``text`` cut at the last paragraph break in each second half of
    ``size`` characters, else at the first one after it."""
    start = 0
    while len(text) - start > size:
        low, high = start + size // 2, start + size
        found = [m.start() for m in _PARAGRAPH_BREAK.finditer(text, low, high)]
        later = None if found else _PARAGRAPH_BREAK.search(text, high)
        cut = found[-1] if found else later.start() if later else -1
        if cut < 0:
            break
        yield start, text[start:cut]
        start = cut
    yield start, text[start:]


def _piece_sentences(
    text: str, model: FeatureModel, config: DetectorConfig, *, whole: bool
) -> tuple[list[tuple[tuple[int, int], tuple[int, ...]]], np.ndarray | None]:
    """The spans in ``text`` of its sentences that have words, with their features, and with
    term retrieval the term ids of those words (:mod:`detection.vocabulary`). A ``whole``
    text shares its normalisation with the refinement stages (`normalized_once`)."""
    normalized, offsets = normalized_once(text) if whole else normalize_with_offsets(text)
    spans = split_sentences(
        normalized, max_chars=config.max_sentence_chars, english=config.english_splitter
    )
    words, bounds, kept = sentence_words(normalized, spans)
    kept_spans = [spans[number] for number in kept]
    spans = original_spans(offsets, kept_spans)
    if config.retrieval_top is None:  # no term retrieval: no terms to index
        return list(zip(spans, document_features(words, bounds, model), strict=True)), None
    features, terms = document_features_and_terms(words, bounds, model)
    return list(zip(spans, features, strict=True)), terms


def warm_up(config: DetectorConfig = DEFAULT_CONFIG, *, checks: bool = True) -> None:
    """Load what :func:`analyze` and (with ``checks``) a check load on first use so that a
    worker's first documents do not pay it: the segmenter's dictionary and NLTK's Punkt
    (about a second together); the lexicon's stop words, stemmer and Cilin (half a second,
    for the disguised-copy stage and term retrieval); WordNet's synonyms (two seconds and
    29 MB, for the disguised-copy stage). A process that only analyses (a bulk-import pool
    worker) passes ``checks=False``."""
    analyze("预热。", config)  # Chinese text: rjieba
    analyze("Warm up. The English splitter is NLTK's Punkt.", config)
    disguise = checks and config.disguise
    if disguise or config.retrieval_top is not None:
        term("预热")
        term("warming")
        cilin_groups()
    if disguise:
        synonyms_of(config)


def detect(
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    *,
    exclude: Collection[int] = (),
    config: DetectorConfig = DEFAULT_CONFIG,
) -> list[Passage]:
    """Copied passages between ``analysis`` and the documents of ``index``.

    Copied sentence pairs come from the index (:mod:`detection.scoring`) and are merged per
    source document into passages (:mod:`detection.align`).  Documents in ``exclude`` (the
    query's own id) are ignored.  Passages are sorted by query position.
    """
    alignments = detect_alignments(analysis, index, exclude=exclude, config=config)
    return sorted(
        (a.passage for a in alignments), key=lambda p: (p.start, p.end, p.source, p.source_start)
    )


def detect_alignments(
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    *,
    exclude: Collection[int] = (),
    config: DetectorConfig = DEFAULT_CONFIG,
) -> list[Alignment]:
    """:func:`detect` with the border sentences of every passage (for word-level refinement)."""
    by_document = _pairs_by_document(analysis, index, exclude, config)
    return _aligned(analysis, index, by_document, config)


def _pairs_by_document(
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    exclude: Collection[int],
    config: DetectorConfig,
) -> dict[int, list[SentencePair]]:
    """The query's sentence pairs found through the index, by source document (the
    sentence-level check: no feature counts)."""
    return _matched(analysis, index, exclude, config, count=False)[0]


def _matched(
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    exclude: Collection[int],
    config: DetectorConfig,
    *,
    count: bool = True,
) -> tuple[dict[int, list[SentencePair]], QueryMatch]:
    """:func:`_pairs_by_document` and the whole :func:`detection.scoring.match_query` (with
    the features each source shares with the query)."""
    expected = feature_model(config).version
    if analysis.model_version != expected:
        raise DetectionError(
            f"analysis was made with model {analysis.model_version!r} but config gives "
            f"{expected!r}: analyze() and detect() need the same DetectorConfig features"
        )
    by_document: dict[int, list[SentencePair]] = defaultdict(list)
    match = match_query(analysis, index, exclude=set(exclude), config=config, count=count)
    for pair in match.pairs:
        by_document[pair.document].append(pair)
    return by_document, match


def _aligned(
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    by_document: Mapping[int, list[SentencePair]],
    config: DetectorConfig,
) -> list[Alignment]:
    """Sequence matching of each source's pairs (sources with edge pairs only are left out:
    edge pairs only continue passages)."""
    wanted = {
        document: {pair.source for pair in pairs}
        for document, pairs in by_document.items()
        if not all(p.edge for p in pairs)
    }
    spans = index.spans(wanted) if wanted else {}
    alignments: list[Alignment] = []
    for document in wanted:
        found = spans.get(document, {})
        alignments.extend(align(document, by_document[document], analysis.sentences, found, config))
    return alignments


def compare(text_a: str, text_b: str, config: DetectorConfig = DEFAULT_CONFIG) -> list[Passage]:
    """Passages of ``text_a`` copied from ``text_b`` (``Passage.source`` is 0 for ``text_b``).

    With both texts at hand, passage borders are refined to word level
    (:func:`detection.refine.refine_alignments`).
    """
    index = MemoryIndex()
    index.add(0, analyze(text_b, config))
    return detect_refined(text_a, analyze(text_a, config), index, lambda _: text_b, config=config)


def detect_refined(
    text: str,
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    source_text: Callable[[int], str],
    *,
    exclude: Collection[int] = (),
    config: DetectorConfig = DEFAULT_CONFIG,
    unit_store: UnitStore | None = None,
) -> list[Passage]:
    """:func:`detect` with word-level passage borders (:mod:`detection.refine`) and, with
    ``config.disguise``, the disguised copies of every candidate source
    (:mod:`detection.disguise`): those of the Low-IDF-Sig lookup and those term retrieval
    finds (:mod:`detection.retrieval`).

    For callers that have the texts: ``text`` is the query (``analysis`` is its analysis) and
    ``source_text(document_id)`` returns a source's text; it is called at most once per
    candidate source.  ``unit_store`` keeps the sources' sentence units between checks.
    """
    views = SourceViews(source_text, config, unit_store)
    return detect_with_sources(text, analysis, index, views, exclude=exclude, config=config)


class UnitStore(Protocol):
    """Sentence units of source documents kept between checks (e.g. in a database): units
    depend only on a document's text and :func:`units_version`, which a store must check."""

    def load(self, documents: Collection[int]) -> Mapping[int, Units]:
        """The stored units of those of ``documents`` that have them."""
        ...

    def save(self, units: Mapping[int, Units]) -> None:
        """Keep the units just made for these documents."""
        ...


class SourceViews:
    """Source texts' word views and sentence units, made once per source (a caller checking
    many documents against one corpus keeps one instance)."""

    def __init__(
        self,
        source_text: Callable[[int], str],
        config: DetectorConfig,
        store: UnitStore | None = None,
    ) -> None:
        self._text = source_text
        self._config = config
        self._store = store
        self._views: dict[int, WordView] = {}
        self._units: dict[int, Units] = {}

    def view(self, document: int) -> WordView:
        if document not in self._views:
            self._views[document] = word_view(self._text(document))
        return self._views[document]

    def units(self, document: int) -> Units:
        if document not in self._units:
            view = self._views.get(document)
            text = view.text if view is not None else self._text(document)
            self._units[document] = query_units(text, self._config)
        return self._units[document]

    def units_of(self, documents: Sequence[int]) -> list[Units]:
        """:meth:`units` of several documents: those the store has are read from it in one
        call, the others made and given to it."""
        missing = [document for document in documents if document not in self._units]
        if self._store is not None and missing:
            stored = self._store.load(missing)
            self._units.update(stored)
            made = {d: self.units(d) for d in missing if d not in stored}
            if made:
                self._store.save(made)
        return [self.units(document) for document in documents]


def _candidates(
    by_document: Mapping[int, list[SentencePair]],
    shared_features: Mapping[int, int],
    config: DetectorConfig,
    weights: Mapping[int, float] | None = None,
) -> set[int]:
    """Sources with at least ``candidate_pairs`` sentence pairs, the ``max_candidates`` with
    the highest sum of pair scores: a disguised copy keeps a few edge pairs with its source
    even where no sentence pair passes (the index is the candidate stage, as source
    retrieval is in PAN).  Then, of the other sources sharing at least
    ``candidate_features`` distinct features with the query, the ``feature_candidates`` with
    the most (by their summed idf in ``weights`` when given, else by their number): a
    machine translation keeps few word chains, too scattered for a pair, and the rarer
    ones single out its source among the many texts that share a few common ones."""
    counted = [
        (sum(p.score for p in pairs), d)
        for d, pairs in by_document.items()
        if len(pairs) >= config.candidate_pairs
    ]
    if config.max_candidates is None:
        found = {d for _, d in counted}
    else:
        found = {d for _, d in sorted(counted, reverse=True)[: config.max_candidates]}
    if config.candidate_features is None:
        return found
    rank = shared_features if weights is None else weights
    others = sorted(
        ((rank[d], d) for d, n in shared_features.items() if n >= config.candidate_features),
        key=lambda item: (-item[0], item[1]),
    )
    return found | {
        d for _, d in [o for o in others if o[1] not in found][: config.feature_candidates]
    }


def units_version(config: DetectorConfig = DEFAULT_CONFIG) -> str:
    """What the sentence units of :func:`query_units` depend on besides the text: stored
    units of another version are not those ``config`` makes."""
    idf = load_idf_model()
    return ";".join(
        [
            "units1",
            f"text={NORMALIZE_VERSION}/{WORDS_VERSION}/{SENTENCES_VERSION}",
            f"sentences=max{config.max_sentence_chars}/{config.english_splitter}",
            f"terms={LEXICON_VERSION}@idf={idf.version}@{idf.digest}",
            f"min={config.min_unit_terms}",
        ]
    )


def query_units(text: str, config: DetectorConfig) -> Units:
    """The sentence units of ``text`` for :func:`detection.disguise.align_units`."""
    return text_units(
        text,
        min_terms=config.min_unit_terms,
        max_chars=config.max_sentence_chars,
        english=config.english_splitter,
    )


def detect_with_sources(
    text: str,
    analysis: DocumentAnalysis,
    index: SentenceIndex,
    sources: SourceViews,
    *,
    exclude: Collection[int] = (),
    within: Collection[int] | None = None,
    config: DetectorConfig = DEFAULT_CONFIG,
) -> list[Passage]:
    """:func:`detect_refined` with a reusable :class:`SourceViews`; ``within``: only these
    sources are looked at (every step is per source, so their passages are the same, but
    for summaries: those of the sources looked at compete, ``summary_closest``)."""
    by_document, match = _matched(analysis, index, exclude, config)
    # before ``within``: as in the app
    ranked = _candidates(by_document, match.shared_features, config, match.shared_weights)
    if within is not None:
        by_document = {d: pairs for d, pairs in by_document.items() if d in within}
        ranked &= set(within)
    alignments = _aligned(analysis, index, by_document, config)
    refined: list[Passage] = []
    query_view: WordView | None = None  # made once, when needed: large for a long text
    if alignments:
        ids = {a.passage.source for a in alignments}
        query_view = word_view(text)
        refined = refine_alignments(
            query_view,
            {source: sources.view(source) for source in ids},
            alignments,
            join_chars=config.join_chars,
            min_chars=config.min_single_chars,
        )
    if not config.disguise:
        return refined
    units = None  # made once, when needed: a check without candidates does not need them
    if config.retrieval_top is not None:
        units = query_units(text, config)
        found = term_candidates(units, index, exclude=exclude, config=config)
        ranked |= found if within is None else found & set(within)
    candidates = ranked | {p.source for p in refined}
    if not candidates:
        return refined
    units = query_units(text, config) if units is None else units
    query_view = word_view(text) if query_view is None else query_view
    kinds: dict[int, tuple[list[Passage], bool]] = {}
    for document in sorted(candidates):
        own = [p for p in refined if p.source == document]
        # exact_kinds of no passages is ([], False): a source's view is made only when used.
        kinds[document] = (
            exact_kinds(own, query_view, sources.view(document), config) if own else ([], False)
        )
    disguised = _disguised(units, kinds, sources, config)
    passages: list[Passage] = []
    for document, (exact, verbatim) in kinds.items():
        least = config.min_latin_terms
        pieces = [p for p in exact if verbatim and not not_tiny(p, query_view, least)]
        aligned = disguised.get(document, [])
        merged = merge_passages(exact, aligned, verbatim, config.border_slack, pieces)
        if verbatim:
            merged = [p for p in merged if not_tiny(p, query_view, least)]
        if config.repeat_share is not None:
            merged = copied_once(merged, config.repeat_share)
        if config.join_units is not None and len(merged) > 1:
            merged = join_neighbours(merged, units, sources.units(document), config.join_units)
        if config.border_reach is not None:
            merged = word_borders(
                merged,
                query_view,
                units,
                sources.units(document),
                reach=config.border_reach,
                grow=config.border_grow,
                shrink=config.border_shrink,
            )
        passages.extend(merged)
    if config.summary_closest:
        passages = closest_summaries(passages)  # across sources: the only such step
    return sorted(passages, key=lambda p: (p.start, p.end, p.source, p.source_start))


def _disguised(
    units: Units,
    kinds: Mapping[int, tuple[list[Passage], bool]],
    sources: SourceViews,
    config: DetectorConfig,
) -> dict[int, list[Passage]]:
    """:func:`detection.disguise.align_units` of the query's ``units`` with each source of
    ``kinds`` (``beside_verbatim`` where :func:`exact_kinds` found a verbatim copy), run only
    on those with a unit pair above the lower of the two seed Dice thresholds (of normal and
    summary mode): without one there is no seed, so no fragment and no passage."""
    documents = list(kinds)
    if not documents:
        return {}
    side = query_side(units)
    source_units = sources.units_of(documents)
    coded = coded_units(side, source_units, synonyms_of(config))
    least = min(config.seed_dice, config.summary_seed)
    seeded = could_seed(side, coded, dice=least)
    kept = [number for number, seeds in enumerate(seeded) if seeds]
    aligned = align_many(
        [documents[k] for k in kept],
        side,
        [source_units[k] for k in kept],
        config,
        [coded[k] for k in kept],
        [kinds[documents[k]][1] for k in kept],
    )
    return {documents[k]: passages for k, passages in zip(kept, aligned, strict=True)}


def coverage(text_length: int, passages: Iterable[Passage]) -> float:
    """Fraction of a query text of ``text_length`` characters covered by ``passages``."""
    if text_length <= 0:
        return 0.0
    covered = 0
    reach = 0
    for start, end in sorted((p.start, p.end) for p in passages):
        start = max(start, reach)
        if end > start:
            covered += end - start
            reach = end
    return min(1.0, covered / text_length)
