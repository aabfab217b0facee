"""`GET /api/collections/<id>/graph/`: the collusion graph of an assignment, built from the
copied pairs: nodes, edges with both shares, the direction from the submission times, and
404 for anyone but the owner."""

from __future__ import annotations

import pytest

from documents import selectors, services
from tests.documents.classroom import COPIED, classroom, submitted
from tests.documents.factories import processed
from tests.documents.test_pairs import TRAINS

pytestmark = pytest.mark.django_db


@pytest.fixture
def students(assignment):
    return classroom(assignment)


def graph_of(api, collection):
    response = api.get(f"/api/collections/{collection.id}/graph/")
    assert response.status_code == 200
    return response.json()


def test_it_links_the_documents_that_share_passages(api, assignment, students):
    graph = graph_of(api, assignment)
    names = {d.id: name for name, d in students.items()}
    assert graph["collection"] == assignment.id
    assert graph["documents"] == 5
    # erin shares nothing: not a node.
    assert {names[n["id"]] for n in graph["nodes"]} == {"alice", "bob", "carol", "dave"}
    assert {(names[e["source"]], names[e["target"]]) for e in graph["edges"]} == COPIED
    node = next(n for n in graph["nodes"] if n["id"] == students["bob"].id)
    assert node["title"] == "bob.txt"
    assert node["url"] == f"/documents/{students['bob'].id}/report/"


def test_each_edge_carries_both_shares_as_the_pairs_do(api, assignment, students):
    graph = graph_of(api, assignment)
    pairs = {
        frozenset((p.document, p.other)): p
        for p in selectors.collection_pairs(collection=assignment)
    }
    for edge in graph["edges"]:
        pair = pairs[frozenset((edge["source"], edge["target"]))]
        by_side = {pair.document: pair.share, pair.other: pair.other_share}
        assert edge["source_share"] == pytest.approx(by_side[edge["source"]])
        assert edge["target_share"] == pytest.approx(by_side[edge["target"]])
        assert edge["share"] == pytest.approx(pair.strongest)
        assert edge["passages"] == pair.passages
        assert edge["id"] == f"{edge['source']}-{edge['target']}"
    shares = [edge["share"] for edge in graph["edges"]]
    assert shares == sorted(shares, reverse=True)
    # carol is mostly alice's market paragraph; dave took two sentences of bob's text.
    by_names = {(e["source"], e["target"]): e for e in graph["edges"]}
    carol = by_names[students["carol"].id, students["alice"].id]
    dave = by_names[students["dave"].id, students["bob"].id]
    assert carol["source_share"] > 0.5 and carol["source_share"] > carol["target_share"]
    assert dave["share"] < carol["share"]


def test_the_earlier_submission_is_the_original(api, assignment, students):
    graph = graph_of(api, assignment)
    assert all(edge["directed"] for edge in graph["edges"])
    edge = next(e for e in graph["edges"] if e["source"] == students["carol"].id)
    assert edge["target"] == students["alice"].id
    assert edge["url"] == f"/documents/{students['carol'].id}/report/?source={students['alice'].id}"

    # carol submitted first after all: alice copied from her.
    submitted(students["carol"], days_ago=30)
    edge = next(
        e
        for e in graph_of(api, assignment)["edges"]
        if students["carol"].id in (e["source"], e["target"])
    )
    assert (edge["source"], edge["target"]) == (students["alice"].id, students["carol"].id)
    assert edge["directed"]


def test_submissions_at_the_same_time_have_no_direction(api, assignment, students):
    submitted(students["carol"], days_ago=4)  # alice's time, to the minute
    submitted(students["alice"], days_ago=4)
    edge = next(
        e
        for e in graph_of(api, assignment)["edges"]
        if {e["source"], e["target"]} == {students["carol"].id, students["alice"].id}
    )
    assert edge["directed"] is False
    # The side with the larger share leads; its report shows the pair.
    assert edge["source"] == students["carol"].id
    assert edge["url"].startswith(f"/documents/{students['carol'].id}/report/?source=")


def test_documents_of_archives_are_not_nodes(api, owner, assignment, students):
    archive = services.collection_create(owner=owner, name="Published", kind="archive")
    processed(archive, "trains.txt", TRAINS.encode())
    frank = processed(assignment, "frank.txt", ("Trains are my hobby. " + TRAINS).encode())
    assert any(p.document == frank.id for p in selectors.collection_pairs(collection=assignment))
    graph = graph_of(api, assignment)
    assert graph["documents"] == 6
    assert {n["id"] for n in graph["nodes"]} == {
        students[name].id for name in ("alice", "bob", "carol", "dave")
    }
    assert len(graph["edges"]) == 3


def test_a_collection_without_pairs_has_an_empty_graph(api, owner):
    empty = services.collection_create(owner=owner, name="Quiet")
    assert graph_of(api, empty) == {
        "collection": empty.id,
        "documents": 0,
        "nodes": [],
        "edges": [],
    }


def test_a_stranger_gets_404(client, stranger, assignment, students):
    client.force_login(stranger)
    assert client.get(f"/api/collections/{assignment.id}/graph/").status_code == 404
    assert client.get(f"/collections/{assignment.id}/collusion/").status_code == 404


def test_the_schema_describes_the_graph(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/collections/{collection_id}/graph/"]["get"]
    assert "200" in operation["responses"]
    edge = schema["components"]["schemas"]["GraphEdge"]["properties"]
    assert {"source", "target", "directed", "source_share", "target_share", "share", "url"} <= set(
        edge
    )
