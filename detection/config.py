"""All tunables of the detector in one frozen dataclass.

Defaults were chosen on the two development sets together (pan13-verbatim-dev and
zh-reuse-dev, with ``python -m detection evaluate``), never on single files; docs/detection.md
records the measurements.  Fields that change the *features* (and so what an index stores) are
part of :attr:`DetectorConfig.model_version`; the others only change how detection reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from detection.sentences import EnglishSplitter

__all__ = ["DetectorConfig", "DEFAULT_CONFIG", "SimilarityMeasure"]

SimilarityMeasure = Literal["jaccard", "overlap", "containment"]


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    """Parameters of Low-IDF-Sig extraction, copy detection and sequence matching.

    Feature model (stored with every posting):
        chain_length: c — words after the antecedent in a chain (the chain has c + 1 words).
        han_chain_length: c for chains whose antecedent is a Chinese word. Both are 1: a
            two-word chain breaks at fewer edited words than a three-word one, and with the
            word trigram a one-pair passage must show (`detection.refine`) they find no more
            accidental passages in a 3,300-document English archive (docs/detection.md).
        chain_gap: d — distance between chained words.
        antecedents: n — lowest-IDF words taken per language from the shipped IDF table.
        hash_seed: key of the blake2b feature hash.
        max_sentence_chars: longer "sentences" are cut at a clause mark.
        english_splitter: "punkt" (NLTK's untrained PunktSentenceTokenizer, exactly; fast
            through detection.punkt) or "punkt-rules" (a one-regex approximation of its rules,
            99.76% agreement).

    Copy detection:
        similarity: how shared features become a sentence-pair score.
        sentence_threshold: minimum score for a copied sentence pair.
        min_shared: minimum shared features for a copied sentence pair.
        containment_threshold / containment_min_features: a pair also counts when the smaller
            sentence has at least this many features and this share of them lies inside the
            larger one (copies that merge or split sentences).
        max_df_fraction / max_df_floor: features in more than
            ``max(max_df_floor, max_df_fraction * documents)`` documents are ignored.
        max_sentence_df: a feature in more than this many sentences of one document is ignored
            for that document (the query, or one source document): a document's own refrain
            carries no evidence of where it was copied, and it bounds the candidate pairs of a
            feature to max_sentence_df² per document pair (repetitive texts stay linear).
            None: no limit.

    Sequence matching:
        max_gap: unmatched query sentences tolerated inside a passage.
        source_window: how far (in source sentences) a pair may jump back or ahead and still
            continue a passage (reordering).
        max_source_gap: uncopied source sentences in a row tolerated inside one passage; a
            longer gap separates two copies from one source.
        min_passage_sentences / min_single_chars / min_single_mass: a passage needs this many
            copied sentences, or fewer spanning at least ``min_single_chars`` characters whose
            length × mean score is at least ``min_single_mass``.
        join_chars: passages that continue each other in order on both sides within this many
            characters are joined (again after word-level refinement, when both texts are known).
        extension_threshold / extension_gap: a passage grows at each end by sentences edited too
            much to pass the pair rules: the next query sentence (skipping at most
            ``extension_gap`` unpaired ones) joins when it shares a feature with a source
            sentence continuing the passage's source side (within ``max_source_gap``) and their
            Jaccard reaches ``extension_threshold``. Such pairs never start a passage. None:
            passages are not extended.

    Disguised copies (:mod:`detection.disguise`; Sanchez-Perez et al., PAN 2014):
        disguise: run the bag-of-words stage on every candidate source (False: Low-IDF-Sig
            passages only).
        candidate_pairs / max_candidates: a source is a candidate when it has a Low-IDF-Sig
            passage or at least candidate_pairs sentence pairs (edge pairs included) with the
            query; of the latter, only the max_candidates with the highest sum of pair scores
            are aligned (None: all; a limit bounds the work per check in a large archive and
            loses disguised copies whose sources share few pairs).
        candidate_features / feature_candidates: of the other sources, those sharing at
            least candidate_features distinct Low-IDF-Sig features with the query are
            candidates too, the feature_candidates sharing the most (None: none; a machine
            translation keeps few word chains, too scattered for a sentence pair).
        retrieval_top / retrieval_window / retrieval_df_fraction: term retrieval
            (:mod:`detection.retrieval`), off by default (None): it finds sources of machine
            translations but doubles the index's postings. With retrieval_top set, analyses
            carry their terms (the feature model's version says so) and windows of
            retrieval_window units, half a window apart, each make the retrieval_top sources
            closest by tf-idf cosine candidates; terms in more than retrieval_df_fraction of
            the documents (at least max_df_floor) are left out.
        min_unit_terms: a sentence with fewer terms is annexed to the next one.
        english_synonyms: a source's English term counts as a query term it is a WordNet
            synonym of (:func:`detection.lexicon.english_synonyms`; needs the WordNet
            database, Debian's wordnet-base).
        seed_cosine / seed_dice: a seed is a unit pair above both (tf-isf cosine, Dice).
        fragment_gap: units tolerated between seeds on either side of a fragment at first;
            least_gap: the smallest gap validation may shrink it to.
        fragment_cosine: a fragment's joined units must be more alike than this.
        source_trim: a fragment's source side is the span of each query unit's best seed,
            widened by the source units of other seeds at most this many units beyond it
            (None: every seed's source unit; summary mode always takes them all).
        summary_seed / summary_gap / summary_cosine / summary_ratio: summary mode's seed
            threshold (cosine and Dice), source gap and fragment threshold, and how many times
            more source than query characters its fragments must cover for the pair to be a
            summary.
        summary_sources / summary_units: a summary fragment seeds at least this many source
            units and spans at least this many query units (a summary condenses a span into a
            few sentences; one sentence against a long span is an accident).
        summary_stride: the median source step between consecutive summary sentences must
            reach this many units (a copy read in order steps by about one).
        summary_spread: the best seeds of a summary fragment's sentences must reach across at
            least this share of its source side (a paraphrase read in order widened by weak
            seeds of topical neighbours has them in one close stretch).
        summary_dense: beside a verbatim copy, a summary is kept (and takes in the verbatim
            passages it overlaps) when at least this share of its sentences have a seed of
            ``apart_cosine``: an extractive summary copies some sentences word for word
            (None: never a summary beside a verbatim copy).
        summary_model / summary_belief: the pair stays a summary only when every summary
            fragment's probability of being one, a logistic model (bias, then weights of
            :func:`detection.disguise.summary_evidence`'s six measures, fit on pan13-train
            by ``python -m benchmarks.summary_model``), reaches summary_belief (a paraphrase
            read in order also condenses a little when weak seeds of topical neighbours
            widen its source side). None: no model.
        summary_closest: where summaries of several sources claim one stretch of the query,
            only the closest keeps it (:func:`detection.disguise.closest_summaries`: a
            summary retells one text; False: all stay).
        summary_reach: a summary fragment's source side is widened at each end by the
            span of its source units over the number of source units its sentences draw
            on, less one (:func:`detection.disguise.reached`: the sentences a summary draws
            on seldom include the first and last of the stretch it condenses).
        min_fragment_terms: fragments with fewer terms on either side are dropped.
        edge_cosine: a fragment grows at each end by the next units of both sides while they
            are at least this alike (None: no growth).
        single_cosine / joined_cosine: a fragment whose seeds hold one unit on either side
            needs a seed with single_cosine, or, when they hold several units on the other
            side, those units joined must be joined_cosine alike with the one (edits that
            merge a copy's sentences into one long unit; None: never).
        summary_best / summary_best_units: a summary fragment needs this many sentences with
            a seed of this cosine (summary sentences close to source sentences; topical
            neighbours share only terms scattered over many sentences).
        verbatim_ratio: a passage whose term sequences agree at least this much is verbatim.
        verbatim_terms: a pair with a verbatim Low-IDF-Sig passage of this many terms is a
            verbatim copy: its Low-IDF-Sig passages are its passages, and disguised passages
            beside them need at least apart_units query units seeded at apart_cosine (a
            machine translation keeps a sentence or two word for word; beside a verbatim
            copy, text on the same topic rests on one close sentence or on loose ones).
        min_latin_terms: in a verbatim pair, a passage without Chinese words needs this many
            terms, as many as a verbatim copy (shorter English passages beside a long copy are
            mostly text that pages share, headings, addresses, quotations, not more copying).
        border_slack: a disguised passage moves a word-exact border of a Low-IDF-Sig passage
            it overlaps only when it reaches further by at least this many characters.
        repeat_share: an edited or summary passage whose source side lies, for at least this
            share of it, in the source side of a stronger passage of the same source (score
            times query length) is dropped (:func:`detection.disguise.copied_once`: text
            that restates a copy; verbatim repeats stay; None: all stay).
        join_units: passages of one source that follow each other on both sides at most
            this many whole units apart on each, not both verbatim, are joined into one
            (:func:`detection.disguise.join_neighbours`; None: never).
        border_reach / border_grow / border_shrink: an edited passage's query borders move
            to word level (:func:`detection.borders.word_borders`): within the edge unit
            and the next one out, to where the words best match the terms of the source
            units around the source border (border_reach units inside it, one outside),
            +1 per matched term, -1 per other; a border moves out for a gain of at least
            border_grow, in for one of at least border_shrink (None: unit borders).
    """

    chain_length: int = 1
    han_chain_length: int = 1
    chain_gap: int = 1
    antecedents: int = 100
    hash_seed: str = "low-idf-sig-1"
    max_sentence_chars: int = 300
    english_splitter: EnglishSplitter = "punkt"
    similarity: SimilarityMeasure = "jaccard"
    sentence_threshold: float = 0.25
    min_shared: int = 2
    containment_threshold: float = 0.6
    containment_min_features: int = 6
    max_df_fraction: float = 0.01
    max_df_floor: int = 50
    max_sentence_df: int | None = 50
    max_gap: int = 3
    source_window: int = 6
    max_source_gap: int = 1
    min_passage_sentences: int = 2
    join_chars: int = 100
    min_single_chars: int = 25
    min_single_mass: float = 20.0
    extension_threshold: float | None = 0.1
    extension_gap: int = 1
    disguise: bool = True
    candidate_pairs: int = 1
    max_candidates: int | None = None
    candidate_features: int | None = 3
    feature_candidates: int = 100
    retrieval_top: int | None = None
    retrieval_window: int = 10
    retrieval_df_fraction: float = 0.05
    min_unit_terms: int = 3
    english_synonyms: bool = True
    seed_cosine: float = 0.33
    seed_dice: float = 0.33
    fragment_gap: int = 3
    least_gap: int = 0
    fragment_cosine: float = 0.34
    source_trim: int | None = 1
    summary_seed: float = 0.2
    summary_gap: int = 24
    summary_cosine: float = 0.3
    summary_ratio: float = 2.0
    summary_sources: int = 4
    summary_units: int = 3
    summary_stride: float = 2.0
    summary_best: float = 0.4
    summary_best_units: int = 1
    summary_spread: float = 0.4
    summary_dense: float | None = 0.7
    summary_model: tuple[float, ...] | None = (
        -20.3113,
        -3.9178,
        1.5904,
        11.1744,
        -0.6988,
        -1.2418,
        3.4496,
    )
    summary_belief: float = 0.2
    summary_reach: bool = True
    summary_closest: bool = True
    min_fragment_terms: int = 12
    edge_cosine: float | None = 0.15
    single_cosine: float = 0.55
    joined_cosine: float | None = 0.6
    verbatim_ratio: float = 0.8
    verbatim_terms: int = 25
    apart_units: int = 2
    apart_cosine: float = 0.5
    border_slack: int = 50
    repeat_share: float | None = 0.5
    join_units: int | None = 6
    border_reach: int | None = 3
    border_grow: float = 2.0
    border_shrink: float = 6.0
    min_latin_terms: int = 25

    def __post_init__(self) -> None:
        if min(self.chain_length, self.han_chain_length, self.antecedents) < 0 or (
            self.chain_gap < 1
        ):
            raise ValueError(
                "DetectorConfig needs chain_length >= 0, chain_gap >= 1 and antecedents >= 0"
            )
        if self.max_sentence_df is not None and self.max_sentence_df < 1:
            raise ValueError("DetectorConfig.max_sentence_df must be >= 1 (or None: no limit)")
        if not 0.0 <= self.sentence_threshold <= 1.0:
            raise ValueError("DetectorConfig.sentence_threshold must lie in [0, 1]")
        if self.extension_threshold is not None and not 0.0 < self.extension_threshold <= 1.0:
            raise ValueError("DetectorConfig.extension_threshold must lie in (0, 1] (or None)")
        if self.retrieval_window < 1 or (self.retrieval_top is not None and self.retrieval_top < 1):
            raise ValueError("DetectorConfig.retrieval_window and retrieval_top must be >= 1")
        if self.extension_gap < 0:
            raise ValueError("DetectorConfig.extension_gap must be >= 0")
        if self.summary_model is not None and len(self.summary_model) != 7:
            raise ValueError(
                "DetectorConfig.summary_model needs a bias and six weights (or None: no model)"
            )

    def max_df(self, document_count: int) -> int:
        """Document-frequency limit for an index holding ``document_count`` documents."""
        return max(self.max_df_floor, int(self.max_df_fraction * document_count))


DEFAULT_CONFIG = DetectorConfig()


#: :data:`DEFAULT_CONFIG` with term retrieval (:mod:`detection.retrieval`) on.
TERM_RETRIEVAL_CONFIG = replace(DEFAULT_CONFIG, retrieval_top=2)
