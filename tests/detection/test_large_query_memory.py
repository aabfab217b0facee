"""The compact forms a long query is checked with give what the plain forms gave: offsets of
irregular characters built as one array, word views made a chunk at a time with shared
words, pair similarities batched by the query's size and handed over one batch at a time,
long texts not kept in the normalisation cache, and one word view of the query per check."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detection import DEFAULT_CONFIG, MemoryIndex, analyze, normalize, refine, seeding
from detection import detector as detector_module
from detection.detector import detect_refined, query_units
from detection.disguise import align_many
from detection.words import token_spans
from tests.detection.test_disguise import DISGUISED, FOREIGN, ORIGINAL, UNRELATED

# Characters that map to nothing (controls, zero width, soft hyphen, BOM), to several
# (ligatures, ﷺ, Roman numerals, ℃) or to one, Han and outside the BMP among them.
_ALPHABET = "ab é\n\t\x00\x01\u200b\u00ad\ufeffﬁﬃﷺⅢ℃中國\U00020000"
_texts = st.text(alphabet=_ALPHABET, max_size=60)


def _per_character(text: str) -> tuple[str, list[int]]:
    """The offsets as the former per-character loop built them."""
    normalize._TABLE.learn(set(text))
    pieces: list[str] = []
    offsets: list[int] = []
    for position, ch in enumerate(text):
        out = normalize._TABLE.table.get(ord(ch), ch)
        pieces.append(out)
        offsets.extend([position] * len(out))
    return "".join(pieces), [*offsets, len(text)]


@given(_texts)
@settings(max_examples=300)
def test_the_offsets_of_irregular_characters_are_those_of_each_character(text):
    mapped, offsets = normalize._map_characters(text)
    expected_text, expected_offsets = _per_character(text)
    assert mapped == expected_text
    found = list(range(len(text) + 1)) if offsets is None else offsets.tolist()
    assert found == expected_offsets


@pytest.mark.parametrize(
    "text", ["\x00ab", "ab\x00", "a\x00\x00b", "ﬁ", "aﬃ\x00b", "\u200b\u200b", "ﷺ\x00ﷺ"]
)
def test_drops_and_expansions_at_the_ends_and_in_a_row(text):
    mapped, offsets = normalize._map_characters(text)
    assert offsets is not None
    assert (mapped, offsets.tolist()) == _per_character(text)


def _whole_view(text: str) -> refine.WordView:
    """The word view as made before: every word of the whole normalised text at once."""
    normalized, offsets = normalize.normalize_with_offsets(text)
    words, starts = token_spans(normalized)
    ends = [s + len(w) for w, s in zip(words, starts, strict=True)]
    if offsets is not None:
        starts = [int(offsets[s]) for s in starts]
        ends = [int(offsets[e - 1]) + 1 for e in ends]
    return refine.WordView(text, tuple(words), starts, ends)


_view_texts = st.lists(
    st.sampled_from(
        [
            "The",
            "river's",
            "flood",
            "3.14",
            "1,000",
            "中文",
            "测试。",
            "Ｆｕｌｌ",
            "ﬁne",
            " ",
            "  ",
            "\n",
            "\n\n",
            ",",
            "\x00",
            "\u3000",
        ]
    ),
    max_size=80,
).map("".join)


@given(_view_texts, st.integers(min_value=1, max_value=12))
@settings(max_examples=200)
def test_a_word_view_made_in_chunks_is_that_of_the_whole_text(text, chunk):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(refine, "_CHUNK_CHARS", chunk)
        view = refine.word_view(text)
    expected = _whole_view(text)
    assert view.words == expected.words
    assert list(view.starts) == list(expected.starts)
    assert list(view.ends) == list(expected.ends)


def test_equal_words_of_a_view_are_one_object_and_offsets_plain_ints(monkeypatch):
    monkeypatch.setattr(refine, "_CHUNK_CHARS", 8)
    view = refine.word_view("the river and the flood and the river " * 20)
    rivers = [w for w in view.words if w == "river"]
    assert len(rivers) == 40 and all(w is rivers[0] for w in rivers)
    assert type(view.starts[3]) is int and type(view.ends[3]) is int
    assert view.word_range((4, 30)) == (1, 7)  # river .. the (at 28)


def test_a_long_text_is_not_kept_in_the_normalisation_cache(monkeypatch):
    monkeypatch.setattr(normalize, "CACHED_CHARS", 50)
    normalize._normalized_cached.cache_clear()
    short, long = "A short text.", "A text longer than fifty characters, " * 3
    assert normalize.normalized_once(short) is normalize.normalized_once(short)
    assert normalize.normalized_once(long)[0] == normalize.normalize_with_offsets(long)[0]
    assert normalize._normalized_cached.cache_info().currsize == 1


def test_a_long_query_is_batched_by_fewer_pairs():
    assert seeding.batch_pairs(10) == seeding._BATCH_PAIRS
    assert seeding.batch_pairs(seeding._BATCH_QUERY_ENTRIES // 4) == 4
    assert seeding.batch_pairs(seeding._BATCH_QUERY_ENTRIES * 3) == 1


def _units(text: str) -> seeding.Units:
    return query_units(text, DEFAULT_CONFIG)


@pytest.mark.parametrize("entries", [1, 40, 1 << 20])
def test_pairs_in_smaller_batches_give_the_same_passages(monkeypatch, entries):
    query = _units(DISGUISED + " " + ORIGINAL)
    sources = [_units(text) for text in (ORIGINAL, UNRELATED, FOREIGN, DISGUISED)]
    documents = [1, 2, 3, 4]
    expected = align_many(documents, seeding.query_side(query), sources, DEFAULT_CONFIG)
    monkeypatch.setattr(seeding, "_BATCH_QUERY_ENTRIES", entries)
    assert align_many(documents, seeding.query_side(query), sources, DEFAULT_CONFIG) == expected
    assert any(expected)


def test_pair_similarities_are_handed_over_one_batch_at_a_time(monkeypatch):
    monkeypatch.setattr(seeding, "_BATCH_QUERY_ENTRIES", 1)
    made: list[int] = []
    batch = seeding._batch_similarities

    def counted(side, sources):
        made.append(len(sources))
        return batch(side, sources)

    monkeypatch.setattr(seeding, "_batch_similarities", counted)
    side = seeding.query_side(_units(DISGUISED))
    coded = seeding.coded_units(side, [_units(ORIGINAL), _units(UNRELATED)])
    pairs = seeding.pair_similarities(side, coded)
    assert inspect.isgenerator(pairs)
    next(pairs)
    assert made == [1]
    assert len(list(pairs)) == 1 and made == [1, 1]


def test_the_check_makes_one_word_view_of_the_query(monkeypatch):
    index = MemoryIndex()
    index.add(1, analyze(ORIGINAL))
    query = ORIGINAL + "\n\n" + DISGUISED
    expected = detect_refined(query, analyze(query), index, lambda _: ORIGINAL)
    made: list[str] = []
    view = detector_module.word_view

    def counted(text):
        made.append(text)
        return view(text)

    monkeypatch.setattr(detector_module, "word_view", counted)
    assert detect_refined(query, analyze(query), index, lambda _: ORIGINAL) == expected
    assert expected and made.count(query) == 1
