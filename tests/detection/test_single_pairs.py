"""A passage resting on one sentence pair must show three words in a row on both sides, as
copied text does; two sentences of an archive can share two short chains by accident."""

from __future__ import annotations

from detection import MemoryIndex, analyze, compare, detect

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
