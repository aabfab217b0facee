"""A passage resting on one sentence pair must show three words in a row on both sides, as
copied text does; two sentences of an archive can share two short chains by accident."""

from __future__ import annotations

from dataclasses import replace

from detection import MemoryIndex, analyze, compare, detect
from detection.align import Alignment, Border
from detection.model import Passage
from detection.refine import refine_alignments, word_view

# Found in a 3,300-document English archive (docs/detection.md): the sentences share the
# chains "of:well" and "well:known" and nothing else.
BIOGRAPHIES = (
    "The museum opened a new wing last spring. Founder of Tan Tock Seng Hospital Tan Tock Seng"
    " - Selected biographies of well-known people and fictional characters Selected"
    " Biographies:\n\nOpening hours are posted at the gate.\n"
)
THEOREM = (
    "Rivers flood in the rainy season. The computer produced a completely novel proof of a"
    " well-known theorem. Farmers plant rice after the water recedes.\n"
)


def test_a_chance_pair_of_sentences_is_found_by_the_features():
    index = MemoryIndex()
    index.add(0, analyze(THEOREM))
    [passage] = detect(analyze(BIOGRAPHIES), index)
    assert "well-known" in BIOGRAPHIES[passage.start : passage.end]


def test_a_chance_pair_of_sentences_without_shared_words_in_a_row_is_no_copy():
    assert compare(BIOGRAPHIES, THEOREM) == []


ORIGINAL = (
    "The committee reviewed the proposal in detail and decided that the new library should be"
    " built near the old railway station, where most of the students live and where the land"
    " is cheaper than anywhere else in the city."
)
# Four edits in forty words: a word replaced, a phrase reworded; one sentence pair alone.
EDITED = (
    "The committee examined the proposal in detail and decided that the new library should be"
    " built close to the old railway station, where most of the pupils live and where the land"
    " is cheaper than anywhere else in town."
)


def test_one_edited_sentence_copied_alone_is_still_found():
    mine = "We went to the meeting on Monday evening. " + EDITED + " Then everybody went home.\n"
    theirs = "Minutes of the city council. " + ORIGINAL + " The session closed at nine.\n"
    [passage] = compare(mine, theirs)
    assert mine[passage.start : passage.end].startswith("The committee examined")
    assert theirs[passage.source_start : passage.source_end].startswith("The committee reviewed")


def test_the_words_are_asked_of_the_passage_before_its_edges_were_extended():
    """An edge pair may add a sentence that shares words in a row; the one pair the passage
    rests on must show them itself."""
    mine = "Alpha beta gamma delta. Shared words in a row here."
    theirs = "Epsilon zeta eta theta. Shared words in a row here."
    first = Border((0, 23), (0, 23))  # "Alpha beta gamma delta." / "Epsilon zeta …"
    core = Alignment(Passage(0, 0, 23, 0, 23, 0.3), 1, first, first, first, first)
    grown = Passage(0, 0, len(mine), 0, len(theirs), 0.3)
    whole = Border((0, len(mine)), (0, len(theirs)))
    item = Alignment(grown, 1, whole, whole, whole, whole, core=core)
    query, sources = word_view(mine), {0: word_view(theirs)}
    assert refine_alignments(query, sources, [item]) == []
    assert refine_alignments(query, sources, [replace(item, core=None)]) != []
