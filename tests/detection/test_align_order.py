"""Sequence matching keeps copies in swapped source order apart (a passage is monotone)."""

from detection import DEFAULT_CONFIG, Passage, SentenceRecord, compare
from detection.align import align, cluster_pairs, follows
from detection.scoring import SentencePair

SOURCE_SENTENCES = [
    "The river council met on Monday to discuss the new bridge across the valley.",
    "Farmers from three villages asked for a wider road to carry their grain to market.",
    "An engineer explained that the old stone piers could not hold heavy trucks any longer.",
    "The council promised to publish the cost of every option before the spring vote.",
    "Several teachers worried that children would have to cross the busy road alone.",
    "The mayor said the town would apply for a national grant to pay for half the work.",
    "A local bakery offered free bread to the volunteers who cleared the river banks.",
    "Heavy rain in April had flooded the lower fields and damaged two wooden footbridges.",
    "The regional newspaper sent a reporter to photograph the broken railings near the mill.",
    "Everyone agreed to meet again in June once the surveyors had finished their report.",
]
FOREIGN = "My grandmother keeps seven cats and a parrot that sings old songs every morning."


def pair(q: int, s: int) -> SentencePair:
    return SentencePair(1, q, s, 1.0)


def sentences(count: int, length: int = 10) -> list[SentenceRecord]:
    return [SentenceRecord(i, i * length, (i + 1) * length, (i,)) for i in range(count)]


def spans(count: int, length: int = 10) -> dict[int, tuple[int, int]]:
    return {i: (i * length, (i + 1) * length) for i in range(count)}


def test_a_run_copied_from_before_the_previous_run_starts_a_new_cluster():
    # Query sentences 0-4 copy source 8-12, then 6-8 copy source 5-7: two adjacent source
    # blocks copied in swapped order, although 5 lies within the reordering window of 8.
    pairs = [pair(q, 8 + q) for q in range(5)] + [pair(6 + k, 5 + k) for k in range(3)]
    clusters = cluster_pairs(pairs, DEFAULT_CONFIG)
    assert [sorted(p.source for p in c.pairs) for c in clusters] == [
        [8, 9, 10, 11, 12],
        [5, 6, 7],
    ]


def test_local_reordering_inside_the_window_stays_one_cluster():
    pairs = [pair(0, 11), pair(1, 10), pair(2, 13), pair(3, 12), pair(4, 14)]
    (cluster,) = cluster_pairs(pairs, DEFAULT_CONFIG)
    assert len(cluster.pairs) == 5


def test_align_gives_swapped_blocks_as_two_passages_in_their_source_order():
    query = sentences(10)
    pairs = [pair(q, 8 + q) for q in range(5)] + [pair(6 + k, 5 + k) for k in range(3)]
    passages = [a.passage for a in align(1, pairs, query, spans(20), DEFAULT_CONFIG)]
    ranges = sorted((p.start, p.end, p.source_start, p.source_end) for p in passages)
    assert ranges == [(0, 50, 80, 130), (60, 90, 50, 80)]


def test_a_passage_whose_source_begins_earlier_does_not_continue_another():
    first = Passage(0, 0, 100, 500, 550, 1.0)
    earlier_source = Passage(0, 120, 200, 480, 650, 1.0)
    in_order = Passage(0, 120, 200, 560, 640, 1.0)
    assert not follows(first, earlier_source, join_chars=100)
    assert follows(first, in_order, join_chars=100)


def test_compare_keeps_two_swapped_copies_apart_and_leaves_the_foreign_sentence_out():
    source = " ".join(SOURCE_SENTENCES)
    second, first = " ".join(SOURCE_SENTENCES[:5]), " ".join(SOURCE_SENTENCES[5:])
    suspicious = f"{first} {FOREIGN} {second}"
    passages = compare(suspicious, source)
    found = [(suspicious[p.start : p.end], source[p.source_start : p.source_end]) for p in passages]
    assert found == [(first, first), (second, second)]


def test_a_source_run_copied_twice_with_little_between_gives_two_clusters():
    # Source 3-6 copied at query 0-3 and again at query 5-8, one foreign sentence between.
    pairs = [pair(q, 3 + q) for q in range(4)] + [pair(5 + k, 3 + k) for k in range(4)]
    clusters = cluster_pairs(pairs, DEFAULT_CONFIG)
    assert [sorted(p.query for p in c.pairs) for c in clusters] == [[0, 1, 2, 3], [5, 6, 7, 8]]


def test_a_source_sentence_split_over_several_query_sentences_stays_one_cluster():
    # Source sentence 4 is copied as query sentences 1-3; the middle piece did not match.
    pairs = [pair(0, 3), pair(1, 4), pair(3, 4), pair(4, 5)]
    (cluster,) = cluster_pairs(pairs, DEFAULT_CONFIG)
    assert len(cluster.pairs) == 4


def test_compare_gives_a_paragraph_copied_twice_as_two_passages():
    source = " ".join(SOURCE_SENTENCES)
    paragraph = " ".join(SOURCE_SENTENCES[2:6])
    suspicious = f"{paragraph} {FOREIGN} {paragraph}"
    passages = compare(suspicious, source)
    start = source.index(paragraph)
    assert [(p.start, p.end, p.source_start, p.source_end) for p in passages] == [
        (0, len(paragraph), start, start + len(paragraph)),
        (len(suspicious) - len(paragraph), len(suspicious), start, start + len(paragraph)),
    ]
