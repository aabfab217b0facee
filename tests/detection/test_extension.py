"""A copy's last (or first) sentence is often the most edited: it still belongs to the passage
when it shares a feature with the source sentence that continues it (edge pairs)."""

from __future__ import annotations

import dataclasses

from detection import DEFAULT_CONFIG, analyze, compare

SOURCE = (
    "The river rises every spring when the snow melts in the mountains. Farmers along its"
    " banks have learned to plant their crops after the flood. The old bridge was rebuilt"
    " three times during the last century because of the water. Nobody remembers who built"
    " the first one.\n"
)
REWRITTEN = (
    "Engineers replaced that ancient crossing on three occasions in the last hundred years"
    " because of the floods."
)
QUERY = (
    "Our class wrote about local history this week. The river rises every spring when the snow"
    " melts in the mountains. Farmers along its banks have learned to plant their crops after"
    " the flood. " + REWRITTEN + " Then we had lunch in the park.\n"
)


def test_the_rewritten_sentence_shares_one_chain_with_its_source():
    query, source = analyze(QUERY).sentences[3], analyze(SOURCE).sentences[2]
    assert QUERY[query.start : query.end] == REWRITTEN
    assert len(set(query.features) & set(source.features)) == 1  # below min_shared


def test_a_passage_takes_in_its_rewritten_last_sentence():
    """Up to the last word the two sentences share ("because of the"), as word-level borders
    end every passage."""
    [passage] = compare(QUERY, SOURCE)
    assert QUERY[passage.start : passage.end].endswith("hundred years because of the")
    assert SOURCE[passage.source_start : passage.source_end].endswith("because of the")


def test_an_edge_whose_words_do_not_agree_is_not_taken():
    """The same sentence sharing its one chain but no three words in a row with the source
    sentence: the passage keeps its copied sentences only."""
    rewritten = "Engineers replaced that crossing thrice in the last decades because of floods."
    query = QUERY.replace(REWRITTEN, rewritten)
    shared = set(analyze(query).sentences[3].features) & set(analyze(SOURCE).sentences[2].features)
    assert shared
    [passage] = compare(query, SOURCE)
    assert query[passage.start : passage.end].endswith("after the flood.")


def test_without_extension_the_passage_stops_before_it():
    config = dataclasses.replace(DEFAULT_CONFIG, extension_threshold=None)
    [passage] = compare(QUERY, SOURCE, config)
    assert QUERY[passage.start : passage.end].endswith("after the flood.")


def test_an_edge_pair_alone_is_no_passage():
    source = "Unrelated opening words here. " + SOURCE.split(". ", 2)[2]
    query = "Something else entirely, said the teacher. " + REWRITTEN + " The end.\n"
    assert compare(query, source) == []
