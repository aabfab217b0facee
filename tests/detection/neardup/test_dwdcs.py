import numpy as np
import pytest

from detection.neardup.concepts import ConceptMapper, load_zh_synonyms
from detection.neardup.dwdcs import DWDCS, DWDCSConfig, DWDCSSig, KeyConcept
from detection.neardup.smallworld import (
    average_path_length,
    cooccurrence_graph,
    hub_contributions,
    main_component,
)


def graph(n, edges):
    adj = np.zeros((n, n), dtype=bool)
    for a, b in edges:
        adj[a, b] = adj[b, a] = True
    return adj


def test_average_path_length_of_a_path_of_three():
    # distances 1, 1, 2 over unordered pairs → mean 4/3
    assert average_path_length(graph(3, [(0, 1), (1, 2)])) == pytest.approx(4 / 3)


def test_unreachable_pairs_count_as_the_node_count():
    # two isolated nodes: both ordered pairs unreachable → distance n = 2
    assert average_path_length(graph(2, [])) == pytest.approx(2.0)


def test_the_hub_of_a_star_contributes_most():
    star = graph(5, [(0, 1), (0, 2), (0, 3), (0, 4)])
    cb = hub_contributions(star, [0, 1])
    # Without the hub four isolated nodes (distance 4 each); with it mean 1.6.
    assert cb[0] == pytest.approx(4 - 1.6)
    assert cb[1] == pytest.approx(1.5 - 1.6)


def test_graph_keeps_frequent_concepts_and_links_within_distance_two():
    nodes, adj = cooccurrence_graph(list("abcabcxd"), min_freq=2, window=2, max_nodes=10)
    assert nodes == ["a", "b", "c"]
    assert adj.sum() == 6  # a-b, b-c, a-c: complete on three nodes


def test_main_component_is_the_largest():
    assert main_component(graph(5, [(0, 1), (2, 3), (3, 4)])) == [2, 3, 4]


def test_chinese_synonyms_merge_into_one_concept():
    table = load_zh_synonyms()
    assert table["增长"] == table["增加"] == "增加"
    assert ConceptMapper(use_wordnet=False).concept("百姓") == "群众"


def test_english_synonyms_share_a_wordnet_concept(nltk_data):
    mapper = ConceptMapper(nltk_data)
    assert mapper.concept("car") == mapper.concept("automobile") == "car.n.01"


def test_relation_needs_cosine_and_aligned_positions():
    method = DWDCS(DWDCSConfig(min_cosine=0.9, max_position_std=0.1))
    a = DWDCSSig(tuple(KeyConcept(f"c{i}", 2, i / 10) for i in range(10)))
    moved = DWDCSSig(tuple(KeyConcept(f"c{i}", 2, (9 - i) / 10) for i in range(10)))
    other = DWDCSSig(tuple(KeyConcept(f"x{i}", 2, i / 10) for i in range(10)))
    assert method.relation(a, a).kind == "duplicate"
    assert method.relation(a, moved).kind == "different"  # same concepts, scattered
    assert method.relation(a, other).kind == "different"


def test_collection_relations(collection):
    method = DWDCS(DWDCSConfig(use_wordnet=False))
    method.fit(collection.values())
    sig = {d: method.signature(t) for d, t in collection.items()}
    assert len(sig[0].keys) > 3
    assert method.relation(sig[0], sig[1]).kind == "duplicate"
    assert method.relation(sig[0], sig[4]).kind == "different"
    assert method.relation(sig[5], sig[6]).kind == "duplicate"
