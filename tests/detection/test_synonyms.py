"""English synonyms of the disguised-copy stage: WordNet's first senses, folded towards the
query's own terms."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from detection import DEFAULT_CONFIG, DetectionError, compare
from detection.lexicon import english_stopwords, english_synonyms, term
from detection.seeding import pair_space, text_units, unit_similarities
from tests.detection.test_disguise import ORIGINAL, UNRELATED

# ORIGINAL with most content words replaced by a synonym of their first WordNet sense, in the
# same order: the words a random obfuscation or a translation round trip would put there.
SYNONYMOUS = (
    "The former haven of that town got rebuilt after a great rage of wintertime. "
    "Technologists lifted rock palisades and dug a canal deeper for bigger ships. "
    "Vendors promptly reverted with freight of lumber, salt and dried fish from the northward. "
    "That council paid for the job with a particular taxation on each barrel of vino. "
    "Inside a decade a haven gained more than it ever cost those citizens.\n"
)

_INDEX_NOUN = """\
  1 This software and database is provided "as is"
car n 2 1 @ 2 1 00000001 00000002
automobile n 1 1 @ 1 1 00000001
railcar n 1 0 1 0 00000002
motor_vehicle n 1 0 1 0 00000003
"""
_DATA_NOUN = """\
  1 This software and database is provided "as is"
00000001 06 n 03 car 0 auto 0 automobile 0 000 | a motor vehicle with four wheels
00000002 06 n 02 car 0 railcar 0 000 | a wheeled vehicle adapted to the rails of railroad
00000003 06 n 02 motor_vehicle 0 automotive_vehicle 0 000 | a self-propelled vehicle
"""
_INDEX_ADJ = "large a 1 0 1 0 00000010\n"
_DATA_ADJ = "00000010 00 s 02 large(a) 0 big 0 000 | above average in size\n"


@pytest.fixture
def wordnet_at(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """Point WORDNET somewhere else; the shipped WordNet is read again afterwards."""

    def point(folder: Path) -> None:
        monkeypatch.setenv("WORDNET", str(folder))
        english_synonyms.cache_clear()

    yield point
    english_synonyms.cache_clear()


def _database(folder: Path) -> Path:
    files = {"index.noun": _INDEX_NOUN, "data.noun": _DATA_NOUN}
    files |= {"index.adj": _INDEX_ADJ, "data.adj": _DATA_ADJ}
    for part in ("noun", "verb", "adj", "adv"):
        for kind in ("index", "data"):
            (folder / f"{kind}.{part}").write_text(files.get(f"{kind}.{part}", ""))
    return folder


def test_a_word_takes_the_words_of_its_first_sense_only(tmp_path, wordnet_at):
    wordnet_at(_database(tmp_path))
    synonyms = english_synonyms()
    # car's first sense is the automobile; railcar (its second) is not a synonym of car, but
    # car is one of railcar, whose only sense that is.
    assert synonyms[term("car")] == tuple(sorted({term("auto"), term("automobile")}))
    assert synonyms[term("automobile")] == tuple(sorted({term("car"), term("auto")}))
    assert synonyms[term("railcar")] == (term("car"),)
    assert synonyms[term("large")] == (term("big"),)  # the adjective marker "(a)" is dropped
    # phrases are no English token: neither a key nor a synonym
    assert not any("_" in key or "_" in "".join(values) for key, values in synonyms.items())


def test_a_missing_wordnet_is_a_clear_error(tmp_path, wordnet_at):
    wordnet_at(tmp_path / "nowhere")
    with pytest.raises(DetectionError, match="WORDNET"):
        english_synonyms()


def test_the_installed_wordnet_links_terms_to_other_terms():
    synonyms = english_synonyms()
    assert term("music") in synonyms[term("euphony")]
    assert term("harbor") in synonyms[term("harbour")]
    stopwords = {term(word) for word in english_stopwords()} - {None}
    for key, values in synonyms.items():
        assert values == tuple(sorted(set(values))) and key not in values
        assert key not in stopwords


def _first_pair(query: str, source: str, synonyms: dict[str, tuple[str, ...]]) -> float:
    """Cosine of the first sentences of ``query`` and ``source``, each followed by a sentence
    of its own (a term in every unit of the pair weighs nothing)."""
    query_units = text_units(query + " Children read stories at home.", min_terms=1)
    source_units = text_units(source + " Mountain weather changes quickly.", min_terms=1)
    rows, columns, cosines, _ = unit_similarities(pair_space(query_units, source_units, synonyms))
    first = (rows == 0) & (columns == 0)
    return float(cosines[first][0]) if first.any() else 0.0


def test_a_source_term_counts_as_the_query_synonym_it_stands_for():
    synonyms = {term("automobile"): (term("car"),)}
    query, source = "The car crossed the bridge.", "The automobile crossed the bridge."
    assert _first_pair(query, source, synonyms) == pytest.approx(1.0)
    assert _first_pair(query, source, {}) < 0.8
    # only towards the query's terms, and only for a term the query lacks
    assert _first_pair("The truck crossed the bridge.", source, synonyms) < 0.8
    assert _first_pair(query + " The automobile waited.", source, synonyms) < 0.8


def test_a_copy_in_synonyms_is_found_only_with_them():
    found = compare(SYNONYMOUS, ORIGINAL, DEFAULT_CONFIG)
    assert [(p.start, p.end, p.kind) for p in found] == [(0, len(SYNONYMOUS) - 1, "edited")]
    assert found[0].source_end >= len(ORIGINAL) - 2
    assert compare(SYNONYMOUS, ORIGINAL, replace(DEFAULT_CONFIG, english_synonyms=False)) == []


def test_unrelated_texts_stay_clean_with_synonyms():
    assert compare(UNRELATED, ORIGINAL, DEFAULT_CONFIG) == []
    assert compare(SYNONYMOUS, UNRELATED, DEFAULT_CONFIG) == []
