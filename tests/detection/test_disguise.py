"""The disguised-copy stage: terms, seeding, extension, summary mode, merging, kinds."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detection import DEFAULT_CONFIG, MemoryIndex, Passage, analyze, compare
from detection.detector import (
    SourceViews,
    _candidates,
    detect_refined,
    detect_with_sources,
    query_units,
)
from detection.disguise import (
    _believed,
    _condenses,
    _extractive,
    _firm,
    _gathered,
    _grown,
    _is_summary,
    _spread,
    _supported,
    align_units,
    closest_summaries,
    copied_once,
    join_neighbours,
    merge_passages,
    passage_kind,
    reached,
    summary_evidence,
)
from detection.extension import (
    Fragment,
    cluster_seeds,
    extend_seeds,
    resolve_overlaps,
    source_span,
)
from detection.lexicon import term, terms
from detection.scoring import SentencePair
from detection.seeding import Seed, Units, pair_space, seed_pairs, text_units

ORIGINAL = (
    "The old harbour of the town was rebuilt after the great storm of the winter. "
    "Engineers raised the stone walls and dug the channel deeper for larger ships. "
    "Merchants soon returned with cargoes of timber, salt and dried fish from the north. "
    "The council paid for the work with a special tax on every barrel of wine. "
    "Within ten years the harbour earned more than it had ever cost the citizens.\n"
)
# The same passage with words replaced, dropped, inserted and sentences reworded: no three
# words in a row survive in most sentences, so word chains miss it.
DISGUISED = (
    "The ancient harbour of this town got rebuilt following the huge storm in winter. "
    "Engineers lifted its stone walls, digging the channel deeper for bigger ships. "
    "Soon merchants came back bringing cargoes of salt, timber and dried fish from northern lands. "
    "For the work the council paid through a special tax on each barrel of wine. "
    "In ten years the harbour was earning more than it ever cost its citizens.\n"
)
UNRELATED = (
    "Children learn to read by listening to stories long before they know the letters. "
    "A quiet corner with good light and a few cushions makes reading a habit at home. "
    "Libraries lend picture books for weeks, and many of them host a reading hour. "
    "Parents who read aloud every evening give their children a lasting gift.\n"
)
FOREIGN = (
    "Mountain weather changes within minutes, so hikers carry warm clothes in summer too. "
    "The path to the summit crosses two streams and a field of loose rock.\n"
)


def test_english_words_become_stems_without_stop_words():
    assert terms(["the", "engineers", "raised", "walls"]) == ["engin", "rais", "wall"]


def test_chinese_synonyms_fold_to_one_term():
    assert term("电脑") == term("计算机")
    assert term("的") is None


def test_a_short_sentence_is_annexed_to_the_next_unit():
    text = "Yes. The engineers raised the stone walls again."
    units = text_units(text, min_terms=3)
    assert units.spans == ((0, len(text)),)
    assert units.terms == (("yes", "engin", "rais", "stone", "wall", "again"),)


def test_edited_sentences_are_seeded_with_their_originals():
    query = query_units(DISGUISED, DEFAULT_CONFIG)
    source = query_units(ORIGINAL, DEFAULT_CONFIG)
    seeds = seed_pairs(pair_space(query, source), cosine=0.33, dice=0.33)
    assert {(s.query, s.source) for s in seeds} == {(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)}


def test_seeds_far_apart_on_either_side_form_separate_clusters():
    seeds = [Seed(0, 0, 1, 1), Seed(1, 1, 1, 1), Seed(2, 40, 1, 1), Seed(3, 41, 1, 1)]
    clusters = cluster_seeds(seeds, query_gap=4, source_gap=4)
    assert sorted([(s.query, s.source) for s in c] for c in clusters) == [
        [(0, 0), (1, 1)],
        [(2, 40), (3, 41)],
    ]


def test_a_cluster_failing_validation_is_split_with_smaller_gaps():
    query = query_units(DISGUISED + UNRELATED + UNRELATED, DEFAULT_CONFIG)
    source = query_units(ORIGINAL, DEFAULT_CONFIG)
    space = pair_space(query, source)
    # Units 0-1 copy source units 0-1; unit 12 (unrelated text) is a chance seed. With a gap
    # of 12 all three form one cluster, whose joined fragments (cosine 0.35) fail at 0.4:
    # smaller gaps leave the copied units on their own, and the chance seed fails alone.
    seeds = [Seed(0, 0, 1, 1), Seed(1, 1, 1, 1), Seed(12, 4, 1, 1)]
    loose = extend_seeds(seeds, space, query_gap=12, source_gap=12, least_gap=0, threshold=0.0)
    strict = extend_seeds(seeds, space, query_gap=12, source_gap=12, least_gap=0, threshold=0.4)
    assert [f.query for f in loose] == [(0, 12)]
    assert [(f.query, f.source) for f in strict] == [((0, 1), (0, 1))]


def test_a_stray_seed_does_not_drag_the_source_side_away():
    # Query units 0-2 copy source units 5-7; unit 1 also resembles source unit 9 a little.
    seeds = [Seed(0, 5, 0.8, 0.8), Seed(1, 6, 0.7, 0.7), Seed(1, 9, 0.4, 0.4), Seed(2, 7, 0.9, 0.9)]
    assert source_span(seeds, None) == (5, 9)
    assert source_span(seeds, 1) == (5, 7)
    # A weaker seed right beside the best ones is part of the copy (a sentence split in two).
    assert source_span([*seeds, Seed(2, 8, 0.35, 0.35)], 1) == (5, 9)


def test_trimmed_fragments_keep_their_seeds_and_cover_the_best_ones():
    query = query_units(DISGUISED, DEFAULT_CONFIG)
    source = query_units(ORIGINAL, DEFAULT_CONFIG)
    space = pair_space(query, source)
    seeds = [*seed_pairs(space, cosine=0.33, dice=0.33), Seed(0, 4, 0.34, 0.34)]
    [whole] = extend_seeds(seeds, space, query_gap=3, source_gap=3, least_gap=0, threshold=0.0)
    [trimmed] = extend_seeds(
        seeds, space, query_gap=3, source_gap=3, least_gap=0, threshold=0.0, trim=1
    )
    assert whole.seeds == trimmed.seeds
    assert trimmed.query == whole.query == (0, 4)
    assert trimmed.source == (0, 4)  # the best seeds run 0..4 already


def test_a_paraphrase_read_in_order_is_no_summary():
    # Loose seeds of a copy read in order, plus a stray one far into the source: untrimmed,
    # the source side is many times the query side; trimmed, as long as the query side.
    query = query_units(DISGUISED, DEFAULT_CONFIG)
    source = query_units(ORIGINAL + " ".join(_topic_sentences()), DEFAULT_CONFIG)
    seeds = [Seed(i, i, 0.6, 0.6) for i in range(5)] + [Seed(4, len(source) - 1, 0.25, 0.25)]
    fragment = Fragment((0, 4), (0, len(source) - 1), 0.5, tuple(seeds))
    assert _is_summary([fragment], query, source, 2.0, None)
    assert not _is_summary([fragment], query, source, 2.0, 1)


def test_of_overlapping_fragments_the_better_matched_one_stays():
    good = Fragment((0, 3), (0, 3), 0.8, tuple(Seed(i, i, 0.8, 0.8) for i in range(4)))
    poor = Fragment((2, 5), (10, 13), 0.4, (Seed(2, 10, 0.4, 0.4), Seed(5, 13, 0.4, 0.4)))
    assert resolve_overlaps([poor, good]) == [good]


# Two copies side by side in a query, from two places of their source; the sentence where the
# first ends is also loosely like the second's source, so its fragment overlaps the second's.
_SIDE_QUERY = (
    "Engineers raised the stone walls of the harbour. "
    "Merchants brought timber and salt from the north. "
    "The council taxed every barrel of wine. "
    "Farmers planted crops along the river in spring. "
    "The flood destroyed the bridge near the farms. "
    "Students built a museum beside the station."
)
_SIDE_SOURCE = (
    "Farmers planted crops along the river each spring. "
    "A flood destroyed the old bridge near the farms. "
    "Students built a new museum beside the station. "
    "Mountain weather changes within minutes on the path. "
    "Children read picture books at the library. "
    "Engineers raised stone walls around the harbour. "
    "Merchants brought salt and timber from the north. "
    "The council put a tax on every barrel of wine."
)


def test_a_fragment_overlapping_a_better_one_keeps_its_other_seeds():
    space = pair_space(text_units(_SIDE_QUERY, min_terms=3), text_units(_SIDE_SOURCE, min_terms=3))
    first = tuple(Seed(q, q + 5, 0.6, 0.6) for q in range(3)) + (Seed(3, 7, 0.35, 0.35),)
    second = tuple(Seed(q, q - 3, 0.8, 0.8) for q in range(3, 6))
    weaker = Fragment((0, 3), (5, 7), space.fragment_cosine((0, 3), (5, 7)), first)
    better = Fragment((3, 5), (0, 2), space.fragment_cosine((3, 5), (0, 2)), second)
    assert resolve_overlaps([weaker, better]) == [better]
    part, kept = resolve_overlaps([weaker, better], space, threshold=0.3, trim=1)
    assert kept == better
    assert (part.query, part.source, part.seeds) == ((0, 2), (5, 7), first[:3])
    assert part.similarity == pytest.approx(space.fragment_cosine((0, 2), (5, 7)))
    # a part no more alike than the threshold is dropped
    assert resolve_overlaps([weaker, better], space, threshold=0.99, trim=1) == [better]


_seed_lists = st.lists(
    st.builds(Seed, st.integers(0, 5), st.integers(0, 7), st.just(0.5), st.just(0.5)),
    min_size=1,
    max_size=6,
    unique_by=lambda seed: (seed.query, seed.source),
)


@given(st.lists(_seed_lists, min_size=1, max_size=4))
@settings(max_examples=80)
def test_resolved_fragments_never_share_a_query_unit_and_keep_their_seeds(clusters):
    space = pair_space(text_units(_SIDE_QUERY, min_terms=3), text_units(_SIDE_SOURCE, min_terms=3))
    fragments = [
        Fragment(
            (min(s.query for s in c), max(s.query for s in c)),
            (min(s.source for s in c), max(s.source for s in c)),
            0.5,
            tuple(sorted(c)),
        )
        for c in clusters
    ]
    resolved = resolve_overlaps(fragments, space, threshold=-1.0, trim=None)
    for a, b in zip(resolved, resolved[1:], strict=False):
        assert a.query[1] < b.query[0]
    given_seeds = {seed for f in fragments for seed in f.seeds}
    for fragment in resolved:
        assert set(fragment.seeds) <= given_seeds
        assert all(fragment.query[0] <= s.query <= fragment.query[1] for s in fragment.seeds)
    # every query unit a given fragment seeded lies in some resolved fragment
    for seed in given_seeds:
        assert any(f.query[0] <= seed.query <= f.query[1] for f in resolved)


def test_a_disguised_copy_is_found_as_one_edited_passage():
    query = UNRELATED + DISGUISED + FOREIGN
    [passage] = compare(query, ORIGINAL)
    start = query.index("The ancient")
    # The last sentence's end differs ("its citizens"): the word-exact border of the
    # Low-IDF-Sig passage stays at "ever cost", short of the unit's end.
    assert passage.start == start
    assert query.index("ever cost") < passage.end <= start + len(DISGUISED)
    assert passage.source_start == 0
    assert ORIGINAL.index("ever cost") < passage.source_end <= len(ORIGINAL)
    assert passage.kind == "edited"
    assert 0.5 < passage.score <= 1.0


def test_a_verbatim_copy_keeps_its_exact_passage_and_kind():
    query = UNRELATED + ORIGINAL
    [passage] = compare(query, ORIGINAL)
    assert query[passage.start : passage.end] == ORIGINAL.rstrip()
    assert passage.kind == "verbatim"
    assert passage.score == pytest.approx(1.0)  # the same words: 100% alike in the report


def test_unrelated_texts_have_no_passages():
    assert compare(UNRELATED + FOREIGN, ORIGINAL) == []
    assert compare(ORIGINAL, UNRELATED) == []


def test_the_kind_follows_the_term_sequences():
    words = ["harbour", "rebuilt", "storm", "winter", "engineer", "wall"]
    assert passage_kind(words, words, False, 0.8) == "verbatim"
    assert passage_kind(words, words[::-1], False, 0.8) == "edited"
    assert passage_kind(words, words, True, 0.8) == "summary"


def test_an_exact_passage_inside_a_disguised_one_is_taken_in():
    exact = Passage(0, 100, 200, 100, 200, 0.9, "edited")
    disguised = Passage(0, 0, 400, 0, 380, 0.6, "edited")
    [merged] = merge_passages([exact], [disguised], False, 50)
    assert (merged.start, merged.end, merged.source_start, merged.source_end) == (0, 400, 0, 380)


def test_an_exact_border_stays_when_the_disguised_one_reaches_barely_further():
    exact = Passage(0, 30, 400, 0, 380, 0.9, "verbatim")
    disguised = Passage(0, 0, 410, 0, 380, 0.6, "edited")
    [merged] = merge_passages([exact], [disguised], False, 50)
    assert (merged.start, merged.end) == (30, 400)


def test_a_disguised_passage_outweighs_short_exact_ones_aligned_elsewhere():
    # Two short Low-IDF-Sig passages inside the copy's query side point at other source text.
    stray = [
        Passage(0, 120, 180, 900, 960, 0.5, "edited"),
        Passage(0, 300, 360, 40, 100, 0.5, "edited"),
    ]
    disguised = Passage(0, 100, 500, 2000, 2400, 0.7, "edited")
    assert merge_passages(stray, [disguised], False, 50) == [disguised]
    # A longer exact passage keeps its place against a shorter disguised one.
    longer = Passage(0, 0, 450, 900, 1350, 0.9, "edited")
    assert merge_passages([longer], [disguised], False, 50) == [longer]


def test_a_verbatim_pair_keeps_its_exact_passages_whole_and_adds_others_beside_them():
    exact = Passage(0, 0, 300, 0, 300, 1.0, "verbatim")
    around = Passage(0, 0, 420, 0, 410, 0.7, "edited")
    elsewhere = Passage(0, 900, 1200, 500, 800, 0.5, "edited")
    assert merge_passages([exact], [around, elsewhere], True, 50) == [exact, elsewhere]
    [grown, other] = merge_passages([exact], [around, elsewhere], False, 50)
    assert (grown.start, grown.end, other) == (0, 420, elsewhere)


def test_a_verbatim_pair_lets_an_edited_copy_take_in_the_short_pieces_it_kept_word_for_word():
    # A translation round trip keeps a phrase or two word for word (too short to stand as
    # copies of their own): the disguised passage around them, mostly edited, takes them in.
    copy = Passage(0, 0, 60, 0, 60, 1.0, "verbatim")
    pieces = [Passage(0, 1000, 1100, 200, 300, 1.0, "verbatim")]
    around = Passage(0, 700, 1500, 0, 700, 0.7, "edited")
    merged = merge_passages([copy, *pieces], [around], True, 50, pieces)
    assert merged == [copy, around]
    # without the pieces named, they stay fixed and block it, as any verbatim passage does
    assert merge_passages([copy, *pieces], [around], True, 50) == [copy, *pieces]
    # a disguised passage that is mostly the piece itself leaves it as it is
    close = Passage(0, 980, 1150, 190, 330, 0.7, "edited")
    assert merge_passages([copy, *pieces], [close], True, 50, pieces) == [copy, *pieces]


def test_beside_a_verbatim_copy_a_shorter_english_match_is_no_passage():
    # A sentence of 17 terms both pages share (an address, a notice), apart from the copy.
    shared = (
        "Visitors reach the harbour museum by river ferry every summer morning, buying "
        "tickets at the kiosk beside the fish market near the white lighthouse."
    )
    source = ORIGINAL + "The museum keeps a record of every ship in port. " + shared + "\n"
    between = " ".join(_topic_sentences()[:8]) + "\n"
    query = ORIGINAL + between + shared + "\n" + UNRELATED
    [copy] = compare(query, source)
    assert (copy.start, copy.kind) == (0, "verbatim")
    assert len(terms(shared.split())) < DEFAULT_CONFIG.min_latin_terms
    looser = replace(DEFAULT_CONFIG, min_latin_terms=12)
    assert [p.start for p in compare(query, source, looser)] == [0, query.index(shared)]


def test_a_translated_passage_beside_a_verbatim_copy_is_found():
    source = UNRELATED + ORIGINAL
    between = " ".join(_topic_sentences()[:8]) + "\n"  # more than fragment_gap units
    query = UNRELATED + between + DISGUISED
    verbatim, edited = compare(query, source)
    assert verbatim.start == 0
    assert len(UNRELATED.rstrip()) <= verbatim.end < len(UNRELATED) + len("The ")
    assert verbatim.kind == "verbatim"
    assert edited.kind == "edited"
    assert query.index("The ancient") <= edited.start < query.index("Engineers lifted")


def test_beside_a_verbatim_copy_only_firm_fragments_count():
    query = query_units(DISGUISED, DEFAULT_CONFIG)
    source = query_units(ORIGINAL, DEFAULT_CONFIG)
    firm = Fragment((0, 1), (0, 1), 0.6, (Seed(0, 0, 0.7, 0.7), Seed(1, 1, 0.5, 0.5)))
    loose = Fragment((0, 2), (0, 2), 0.5, (Seed(0, 0, 0.7, 0.7), Seed(2, 2, 0.45, 0.45)))
    assert _firm(firm, DEFAULT_CONFIG)
    assert not _firm(loose, DEFAULT_CONFIG)
    passages = align_units(0, query, source, DEFAULT_CONFIG, beside_verbatim=True)
    assert [p.kind for p in passages] == ["edited"]  # its five sentences keep close seeds


def _topic_sentences() -> list[str]:
    topics = [
        ("volcano", "lava", "crater", "eruption", "ash"),
        ("glacier", "ice", "valley", "moraine", "melt"),
        ("desert", "dune", "sand", "oasis", "camel"),
        ("forest", "oak", "canopy", "fungus", "deer"),
        ("reef", "coral", "fish", "lagoon", "tide"),
        ("prairie", "grass", "bison", "wind", "fire"),
    ]
    sentences = []
    for a, b, c, d, e in topics:
        sentences += [
            f"The {a} region shows {b} and {c} formations near every {d} studied by {e} experts.",
            f"Scientists measured the {b} around the {c} while the {d} and {e} kept changing.",
            f"Visitors to the {a} admire the {c} although the {e} makes the {b} dangerous.",
            f"Maps of the {a} record each {d} together with the {b} and the {c} nearby.",
        ]
    return sentences


def test_one_long_unit_is_supported_by_the_units_it_merged_when_alike_together():
    # Query unit 0 (a copy whose edits ran its sentences together) seeds source units 3-5,
    # each loosely; joined they are alike.
    seeds = (Seed(0, 3, 0.45, 0.4), Seed(0, 4, 0.42, 0.4), Seed(0, 5, 0.36, 0.35))
    merged = Fragment((0, 0), (3, 5), 0.7, seeds)
    assert _supported(merged, 0.55, 0.6)
    assert not _supported(merged._replace(similarity=0.5), 0.55, 0.6)
    assert not _supported(merged, 0.55, None)
    # one unit on each side needs the single seed's cosine, whatever the fragment's
    single = Fragment((0, 0), (3, 3), 0.7, seeds[:1])
    assert not _supported(single, 0.55, 0.6)
    assert _supported(single, 0.45, 0.6)


# One sentence for each topic of _topic_sentences(): a summary of the whole source.
TOPIC_SUMMARY = (
    "Volcano regions show lava and crater formations near each eruption. "
    "Glacier valleys hold ice and moraine that melt. "
    "Desert dunes of sand surround an oasis with camels. "
    "Forest oak canopy shelters fungus and deer. "
    "Reef coral and fish live in a lagoon with the tide. "
    "Prairie grass feeds bison until wind and fire come.\n"
)


def test_a_summary_of_a_long_span_is_found_in_summary_mode():
    sentences = _topic_sentences()
    source = " ".join(sentences) + "\n"
    summary = TOPIC_SUMMARY
    query = UNRELATED + summary + FOREIGN
    units = query_units(query, DEFAULT_CONFIG)
    passages = align_units(7, units, query_units(source, DEFAULT_CONFIG), DEFAULT_CONFIG)
    assert [p.kind for p in passages] == ["summary"]
    [p] = passages
    assert p.source == 7
    assert query.index("Volcano") <= p.start < p.end <= query.index("Mountain")
    assert p.source_end - p.source_start > 3 * (p.end - p.start)


def test_a_summary_reaches_past_its_outermost_sources_by_their_mean_spacing():
    # Best seeds at source units 10, 20, 30 and 40 (a weak seed at 12 adds no sentence):
    # four sentences drawn 10 units apart leave about 10 before the first and after the last.
    best = tuple(Seed(q, 10 + 10 * q, 0.6, 0.6) for q in range(4))
    summary = Fragment((0, 3), (10, 40), 0.4, (*best, Seed(0, 12, 0.25, 0.25)))
    assert reached(summary, 100).source == (0, 50)
    assert reached(summary, 45).source == (0, 44)  # never past the source's last unit
    assert reached(summary, 100)[:1] + reached(summary, 100)[2:] == summary[:1] + summary[2:]
    # One source unit drawn on gives no spacing: the fragment stays as it is.
    single = Fragment((0, 1), (5, 5), 0.4, (Seed(0, 5, 0.6, 0.6), Seed(1, 5, 0.5, 0.5)))
    assert reached(single, 100) == single


def test_a_summary_of_a_long_span_reaches_further_than_its_seeds():
    # The condensed stretch (24 sentences) lies between ten unrelated ones on each side.
    source = 2 * ORIGINAL + " ".join(_topic_sentences()) + "\n" + 2 * ORIGINAL
    summary = TOPIC_SUMMARY
    units = query_units(UNRELATED + summary + FOREIGN, DEFAULT_CONFIG)
    source_units = query_units(source, DEFAULT_CONFIG)
    [near] = align_units(7, units, source_units, replace(DEFAULT_CONFIG, summary_reach=False))
    [far] = align_units(7, units, source_units, DEFAULT_CONFIG)
    assert (far.start, far.end) == (near.start, near.end)
    assert far.source_start <= near.source_start and near.source_end <= far.source_end
    assert far.source_end - far.source_start > near.source_end - near.source_start
    assert 0 < far.source_start and far.source_end < len(source)


def test_a_summary_needs_its_best_seeds_across_its_source_side():
    # Best seeds at source units 3 and 40 of 0..49: they reach across 38 of 50 units.
    across = Fragment((0, 1), (0, 49), 0.4, (Seed(0, 3, 0.7, 0.7), Seed(1, 40, 0.6, 0.6)))
    assert _spread(across) == pytest.approx(38 / 50)
    # A close stretch (units 20..22) widened to 0..49 by weak seeds of topical neighbours:
    # only the best seed of each query unit counts.
    weak = (Seed(0, 0, 0.25, 0.25), Seed(2, 49, 0.25, 0.25))
    close = (Seed(0, 20, 0.8, 0.8), Seed(1, 21, 0.8, 0.8), Seed(2, 22, 0.7, 0.7))
    around = Fragment((0, 2), (0, 49), 0.35, close + weak)
    assert _spread(around) == pytest.approx(3 / 50)
    assert _spread(around) < DEFAULT_CONFIG.summary_spread < _spread(across)


def test_summary_evidence_measures_a_fragment_against_the_ordinary_ones():
    # Four summary sentences (units 10..14, 13 unseeded) condensing source units 0..40 in
    # order, one seeded twice; an ordinary fragment overlaps sentences 12..13.
    seeds = (
        Seed(10, 2, 0.6, 0.6),
        Seed(11, 9, 0.5, 0.5),
        Seed(11, 30, 0.25, 0.3),
        Seed(12, 18, 0.45, 0.5),
        Seed(14, 40, 0.7, 0.7),
    )
    summary = Fragment((10, 14), (0, 40), 0.42, seeds)
    ordinary = [Fragment((12, 13), (18, 19), 0.55, ()), Fragment((30, 33), (0, 3), 0.9, ())]
    # query unit k holds k terms: units 10..14 hold 60
    query = Units(
        tuple((10 * k, 10 * k + 9) for k in range(20)),
        tuple(tuple(f"t{k}.{n}" for n in range(k)) for k in range(20)),
    )
    assert summary_evidence(summary, ordinary, query) == pytest.approx(
        (0.55, 1.0, 4 / 5, 5 / 4, 0.42, math.log(60))
    )
    # best seeds out of order: Kendall's tau falls; no ordinary fragment: 0
    shuffled = summary._replace(seeds=(Seed(10, 40, 0.7, 0.7), *seeds[1:4], Seed(14, 2, 0.7, 0.7)))
    nsim, tau, *_ = summary_evidence(shuffled, [], query)
    assert nsim == 0.0 and tau == pytest.approx((1 - 5) / 6)


def test_the_summary_model_refuses_what_looks_like_a_stretched_paraphrase():
    model = DEFAULT_CONFIG.summary_model
    assert model is not None and len(model) == 7
    # a summary of 60 terms: no close ordinary fragment, in order, every sentence seeded
    # once or twice
    assert _believed((0.0, 0.8, 1.0, 1.5, 0.45, math.log(60)), DEFAULT_CONFIG)
    # a paraphrase read in order that loose seeds widened: a close ordinary fragment over it,
    # best seeds out of order, many loose seeds per sentence
    paraphrase = (0.75, 0.0, 0.6, 3.0, 0.35, math.log(60))
    assert not _believed(paraphrase, DEFAULT_CONFIG)
    assert _believed(paraphrase, replace(DEFAULT_CONFIG, summary_model=None))
    # the same measures with an ordinary fragment over it: 60 terms are a summary, the 20
    # terms of a sentence or two that dropped words are not
    assert _believed((0.6, 0.8, 1.0, 1.5, 0.45, math.log(60)), DEFAULT_CONFIG)
    assert not _believed((0.6, 0.8, 1.0, 1.5, 0.45, math.log(20)), DEFAULT_CONFIG)
    with pytest.raises(ValueError, match="bias and six weights"):
        replace(DEFAULT_CONFIG, summary_model=(1.0, 2.0))


def test_ordinary_fragments_inside_a_refused_summary_become_one():
    space = pair_space(text_units(_SIDE_QUERY, min_terms=3), text_units(_SIDE_SOURCE, min_terms=3))
    refused = Fragment((0, 4), (0, 7), 0.4, ())
    pieces = [
        Fragment((0, 1), (5, 6), 0.7, (Seed(0, 5, 0.7, 0.7), Seed(1, 6, 0.6, 0.6))),
        Fragment((3, 4), (0, 1), 0.7, (Seed(3, 0, 0.8, 0.8), Seed(4, 1, 0.7, 0.7))),
    ]
    outside = Fragment((5, 5), (2, 2), 0.9, (Seed(5, 2, 0.9, 0.9),))
    joined, rest = _gathered([*pieces, outside], [refused], space)
    assert (joined.query, joined.source) == ((0, 4), (0, 6))
    assert joined.seeds == pieces[0].seeds + pieces[1].seeds
    assert joined.similarity == pytest.approx(space.fragment_cosine((0, 4), (0, 6)))
    assert rest == outside
    # one piece inside, or no refused summary: nothing changes
    assert _gathered([pieces[0], outside], [refused], space) == [pieces[0], outside]
    assert _gathered([*pieces, outside], [], space) == [*pieces, outside]


def test_a_summary_condenses_source_sentences_closely():
    # Pages on one topic: summary mode's loose seeds only, no sentence close to another.
    loose = Fragment(
        (0, 10),
        (0, 33),
        0.32,
        (
            Seed(0, 0, 0.38, 0.4),
            Seed(4, 0, 0.22, 0.3),
            Seed(7, 18, 0.32, 0.4),
            Seed(10, 27, 0.35, 0.35),
        ),
    )
    assert not _condenses(loose, DEFAULT_CONFIG)
    one = loose._replace(seeds=(*loose.seeds, Seed(5, 13, 0.45, 0.5)))
    assert _condenses(one, DEFAULT_CONFIG)
    assert not _condenses(one, replace(DEFAULT_CONFIG, summary_best_units=2))


def test_beside_a_verbatim_copy_a_summary_must_be_firm_in_most_sentences():
    # Four summary sentences, each close to a different stretch of the source.
    extractive = Fragment(
        (10, 13), (0, 40), 0.5, tuple(Seed(10 + i, 10 * i, 0.9, 0.9) for i in range(4))
    )
    # A verbatim copy of two sentences with loose seeds around it.
    in_order = Fragment(
        (10, 16),
        (0, 40),
        0.35,
        (Seed(15, 30, 1.0, 1.0), Seed(16, 31, 1.0, 1.0), Seed(10, 0, 0.3, 0.3)),
    )
    assert _extractive([extractive], DEFAULT_CONFIG)
    assert not _extractive([in_order], DEFAULT_CONFIG)
    assert not _extractive([extractive], replace(DEFAULT_CONFIG, summary_dense=None))


def test_an_extractive_summary_is_one_passage_with_the_sentences_it_copies():
    sentences = _topic_sentences()
    source = " ".join(sentences) + "\n"
    # Its first three sentences are copied word for word (a verbatim copy of 25+ terms), the
    # others condense stretches further on.
    summary = (
        " ".join(sentences[:3]) + " Desert dunes of sand surround an oasis with camels. "
        "Forest oak canopy shelters fungus and deer. " + sentences[17] + " "
        "Prairie grass feeds bison until wind and fire come.\n"
    )
    query = UNRELATED + summary + FOREIGN
    # without the model: these made-up topic sentences all share their five words, seeding
    # each summary sentence seven times, which the model holds against a summary
    [passage] = compare(query, source, replace(DEFAULT_CONFIG, summary_model=None))
    assert passage.kind == "summary"
    start = query.index(summary)
    assert passage.start == start
    assert query.index("Prairie grass") < passage.end <= start + len(summary)
    assert passage.source_end - passage.source_start > 3 * (passage.end - passage.start)


def test_a_summary_in_a_verbatim_pair_takes_in_the_verbatim_passages_it_holds():
    copied = Passage(0, 100, 300, 0, 200, 1.0, "verbatim")
    apart = Passage(0, 2000, 2300, 900, 1200, 1.0, "verbatim")
    summary = Passage(0, 100, 600, 0, 3000, 0.5, "summary")
    assert merge_passages([copied, apart], [summary], True, 50) == [summary, apart]


def _ten_char_units(count: int) -> Units:
    return Units(tuple((10 * k, 10 * k + 9) for k in range(count)), ((),) * count)


def test_pieces_of_one_copy_close_on_both_sides_are_joined():
    query, source = _ten_char_units(40), _ten_char_units(40)
    # an edited piece, two query units and one source unit skipped, then a verbatim piece
    first = Passage(3, 0, 49, 100, 149, 0.5, "edited")
    second = Passage(3, 70, 99, 160, 189, 1.0, "verbatim")
    [joined] = join_neighbours([second, first], query, source, 2)
    assert (joined.start, joined.end, joined.source_start, joined.source_end) == (0, 99, 100, 189)
    assert joined.kind == "edited"
    assert joined.score == pytest.approx((0.5 * 49 + 1.0 * 29) / 78)
    # more units between them than the gap: apart
    assert join_neighbours([first, second], query, source, 1) == [first, second]
    # two verbatim passages keep their exact borders
    verbatim = replace(first, kind="verbatim")
    assert join_neighbours([verbatim, second], query, source, 2) == [verbatim, second]
    # out of order on the source side: two copies from two places, not one
    before = replace(second, source_start=40, source_end=69)
    assert join_neighbours([first, before], query, source, 2) == [first, before]
    # a summary and its verbatim sentence make a summary
    summary = replace(first, kind="summary")
    assert join_neighbours([summary, second], query, source, 2)[0].kind == "summary"


def test_loose_restatements_of_a_copied_source_passage_are_dropped_verbatim_repeats_stay():
    # A paraphrase of source 100..300; later query text aligns loosely to parts of it.
    copy = Passage(3, 0, 400, 100, 300, 0.8, "edited")
    echoes = [
        Passage(3, 900, 1000, 120, 220, 0.4, "edited"),
        Passage(3, 1300, 1500, 150, 320, 0.5, "summary"),  # 150 of its 170 inside
    ]
    repeat = Passage(3, 2000, 2150, 100, 250, 1.0, "verbatim")  # pasted a second time
    elsewhere = Passage(3, 2500, 2600, 600, 700, 0.4, "edited")
    kept = copied_once([copy, *echoes, repeat, elsewhere], 0.5)
    assert kept == [copy, repeat, elsewhere]
    # sharing less than the share of its own source side: a passage of its own
    assert copied_once([copy, echoes[1]], 0.9) == [copy, echoes[1]]


def test_only_the_closest_source_keeps_a_stretch_read_as_a_summary_of_several():
    # A short text on a subject: summary mode reads it as a summary of two long sources.
    looser = Passage(4, 0, 700, 0, 9000, 0.41, "summary")
    closer = Passage(7, 20, 690, 0, 3500, 0.44, "summary")
    copy = Passage(4, 800, 1000, 9100, 9300, 0.9, "edited")  # a copy beside it stays
    elsewhere = Passage(9, 720, 1400, 0, 5000, 0.3, "summary")  # overlaps neither by half
    kept = closest_summaries([looser, closer, copy, elsewhere])
    assert kept == [closer, copy, elsewhere]
    # one source's summaries never compete; equal scores: the lower source id keeps it
    again = Passage(4, 900, 1300, 9000, 12000, 0.5, "summary")
    assert closest_summaries([looser, again]) == [looser, again]
    twin = replace(closer, source=2)
    assert closest_summaries([closer, twin]) == [twin]


def test_the_app_function_gives_the_passages_of_compare():
    index = MemoryIndex()
    index.add(3, analyze(ORIGINAL))
    index.add(4, analyze(UNRELATED))
    query = FOREIGN + DISGUISED
    texts = {3: ORIGINAL, 4: UNRELATED}
    found = detect_refined(query, analyze(query), index, texts.__getitem__)
    assert [replace(p, source=0) for p in found] == compare(query, ORIGINAL)
    assert [p.source for p in found] == [3]


def test_the_stage_can_be_switched_off():
    config = replace(DEFAULT_CONFIG, disguise=False)
    assert compare(UNRELATED + DISGUISED, ORIGINAL, config) != compare(
        UNRELATED + DISGUISED, ORIGINAL
    )


_WORDS = (
    "harbour storm engineers walls channel ships merchants cargo timber salt fish council tax "
    "barrel wine citizens library station students land river flood farmers crops spring "
    "bridge century water museum hospital biography theorem proof"
).split()


@st.composite
def _documents(draw: st.DrawFn) -> tuple[str, str]:
    """A source of random sentences and a query holding an edited copy of some of them."""
    sentence = st.lists(st.sampled_from(_WORDS), min_size=3, max_size=14).map(
        lambda words: " ".join(words).capitalize() + "."
    )
    source = draw(st.lists(sentence, min_size=1, max_size=12))
    own = draw(st.lists(sentence, max_size=6))
    first = draw(st.integers(0, len(source) - 1))
    copied = source[first : draw(st.integers(first + 1, len(source)))]
    edited = [" ".join(draw(st.permutations(s.rstrip(".").split()))) + "." for s in copied]
    at = draw(st.integers(0, len(own)))
    return " ".join(own[:at] + edited + own[at:]), " ".join(source)


@given(_documents())
@settings(max_examples=40)
def test_passages_lie_inside_both_texts(documents: tuple[str, str]):
    query, source = documents
    for p in compare(query, source):
        assert 0 <= p.start < p.end <= len(query)
        assert 0 <= p.source_start < p.source_end <= len(source)
        assert p.kind in ("verbatim", "edited", "summary")
        assert 0.0 < p.score <= 1.0 + 1e-9


@given(_documents())
@settings(max_examples=40)
def test_disguised_passages_of_units_lie_inside_both_texts(documents: tuple[str, str]):
    query, source = documents
    units = query_units(query, DEFAULT_CONFIG)
    for p in align_units(0, units, query_units(source, DEFAULT_CONFIG), DEFAULT_CONFIG):
        assert 0 <= p.start < p.end <= len(query)
        assert 0 <= p.source_start < p.source_end <= len(source)


ZH_ORIGINAL = (
    "近年来，计算机技术的迅速发展深刻改变了人们的工作方式和生活习惯。"
    "许多工厂引进了自动化生产线，工人的劳动强度明显减轻。"
    "学校也开始利用网络开展远程教学，偏远地区的学生得以听到名师讲课。"
    "专家认为，信息技术将继续推动经济结构的调整和社会的进步。\n"
)
# The same paragraph with Cilin synonyms (电脑/计算机, 迅速/快速, 显著/明显 ...), particles
# dropped and clauses reordered.
ZH_DISGUISED = (
    "近年来，电脑技术快速发展，深刻改变了人们生活习惯和工作方式。"
    "不少工厂引入自动化生产线，工人劳动强度显著减轻。"
    "偏远地区的学生得以听到名师讲课，因为学校也开始利用网络开展远程教学。"
    "专家以为，信息技术将持续推动社会的进步和经济结构的调整。\n"
)


def test_a_document_mixing_languages_gets_both_disguised_copies():
    source = ZH_ORIGINAL + UNRELATED + ORIGINAL
    query = DISGUISED + FOREIGN + ZH_DISGUISED
    english, chinese = compare(query, source)
    assert (english.start, english.source_start) == (0, source.index("The old harbour"))
    # Word-exact borders of the Low-IDF-Sig passage inside the first sentence stay.
    assert query.index("近年来") <= chinese.start < query.index("不少")
    assert 0 <= chinese.source_start < source.index("许多")
    assert chinese.end == len(query.rstrip())
    assert english.kind == chinese.kind == "edited"


def test_a_fragment_grows_by_alike_neighbours_on_both_sides():
    query = query_units(UNRELATED + DISGUISED, DEFAULT_CONFIG)
    source = query_units(ORIGINAL, DEFAULT_CONFIG)
    space = pair_space(query, source)
    middle = Fragment((5, 7), (1, 3), 0.6, (Seed(5, 1, 0.6, 0.6), Seed(7, 3, 0.6, 0.6)))
    # Units 4 and 8 are the disguised first and last sentences; unit 3 is unrelated text.
    [grown] = _grown([middle], space, query, source, 0.2)
    assert (grown.query, grown.source) == ((4, 8), (0, 4))


def test_the_pan_path_picks_the_same_candidates_as_the_app():
    """``within`` (the PAN pairs) is applied after candidates are ranked, so a limit on
    candidates leaves a pair's passages as the app finds them."""
    config = replace(DEFAULT_CONFIG, max_candidates=1)
    index = MemoryIndex()
    for number, text in enumerate((ORIGINAL, UNRELATED + ORIGINAL)):
        index.add(number, analyze(text, config))
    texts = [ORIGINAL, UNRELATED + ORIGINAL]
    query = FOREIGN + DISGUISED
    app = detect_refined(query, analyze(query, config), index, texts.__getitem__, config=config)
    for source in (0, 1):
        views = SourceViews(texts.__getitem__, config)
        pan = detect_with_sources(
            query, analyze(query, config), index, views, within={source}, config=config
        )
        assert pan == [p for p in app if p.source == source]


def test_sources_sharing_many_features_are_candidates_without_a_pair():
    config = replace(DEFAULT_CONFIG, candidate_features=3, feature_candidates=2)
    paired = {1: [SentencePair(1, 0, 0, 0.4)]}
    shared = {1: 2, 2: 3, 3: 9, 4: 5, 5: 2}
    # Source 1 has a pair; of the others with 3 features or more, the two sharing the most.
    assert _candidates(paired, shared, config) == {1, 3, 4}
    assert _candidates(paired, shared, replace(config, candidate_features=None)) == {1}
    # Ranked by weight (summed idf), source 2's three rare features beat source 4's five.
    weights = {1: 1.0, 2: 9.0, 3: 12.0, 4: 2.5, 5: 8.0}
    assert _candidates(paired, shared, config, weights) == {1, 2, 3}
