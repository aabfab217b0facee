"""Verdicts: a reviewer or teacher judges a pair or a passage; a change keeps the history;
the report, the pairs page and the API show who decided what and when."""

from __future__ import annotations

import pytest
from django.test import Client

from documents import services
from documents import verdicts as verdict_reads
from documents.models import Verdict
from tests.documents.factories import WATER, WATER_COPIED, processed
from tests.workspaces.conftest import api_as

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(team):
    assignment = services.collection_create(
        owner=team.users["teacher"], name="Essay", workspace=team.workspace
    )
    source = processed(assignment, "water.txt", WATER.encode())
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    assert copier.similarity > 0.5
    return assignment, source, copier


def test_a_changed_verdict_keeps_its_history_and_the_latest_wins(team, pair):
    _, source, copier = pair
    url = f"/api/documents/{copier.id}/verdicts/"
    first = api_as(team.users["reviewer"]).post(
        url, {"source": source.id, "verdict": "confirmed", "note": "same sentences"}
    )
    assert first.status_code == 201
    assert (first.json()["author"], first.json()["current"]) == ("reviewer", True)
    # judged again from the other side of the pair: the same pair
    second = api_as(team.users["teacher"]).post(
        f"/api/documents/{source.id}/verdicts/",
        {"source": copier.id, "verdict": "not_copying", "note": "both quote the report"},
    )
    assert second.status_code == 201
    history = api_as(team.users["editor"]).get(url).json()
    assert [(v["verdict"], v["author"], v["current"]) for v in history] == [
        ("not_copying", "teacher", True),
        ("confirmed", "reviewer", False),
    ]
    assert Verdict.objects.count() == 2  # appended, never changed
    current = verdict_reads.verdicts_for_document(document=copier)
    assert [(v.value, v.note) for v in current] == [("not_copying", "both quote the report")]


def test_a_passage_verdict_names_a_passage_of_the_report(team, pair):
    _, source, copier = pair
    passage = copier.matches.get(source=source).passages.first()
    reviewer = api_as(team.users["reviewer"])
    url = f"/api/documents/{copier.id}/verdicts/"
    body = {"source": source.id, "verdict": "confirmed", "start": passage.start}
    assert reviewer.post(url, {**body, "end": passage.end}).status_code == 201
    wrong = reviewer.post(url, {**body, "end": passage.end + 1})
    assert wrong.status_code == 400 and "reload the report" in wrong.json()["start"][0]
    half = reviewer.post(url, body)
    assert half.status_code == 400 and "start" in half.json()
    current = verdict_reads.verdicts_for_document(document=copier)
    assert [(v.start, v.end) for v in current] == [(passage.start, passage.end)]


def test_only_a_pair_that_shares_passages_is_judged(team, pair):
    assignment, _, copier = pair
    unrelated = processed(assignment, "garden.txt", b"Tomatoes grow in the garden.")
    answer = api_as(team.users["reviewer"]).post(
        f"/api/documents/{copier.id}/verdicts/", {"source": unrelated.id, "verdict": "confirmed"}
    )
    assert answer.status_code == 400 and "share no passage" in answer.json()["source"][0]
    bad = api_as(team.users["reviewer"]).post(
        f"/api/documents/{copier.id}/verdicts/", {"source": unrelated.id, "verdict": "maybe"}
    )
    assert bad.status_code == 400 and "verdict" in bad.json()


def test_the_report_and_the_pairs_page_show_who_decided_and_when(team, pair):
    assignment, source, copier = pair
    client = Client()
    client.force_login(team.users["reviewer"])
    report = f"/documents/{copier.id}/report/?source={source.id}"
    assert b'id="verdict-form"' in client.get(report).content
    answer = client.post(
        f"/documents/{copier.id}/verdicts/",
        {"source": source.id, "verdict": "confirmed", "note": "word for word"},
    )
    assert answer["Location"] == f"/documents/{copier.id}/report/?source={source.id}#verdict"
    page = client.get(report).content.decode()
    assert "Copying confirmed" in page and "by reviewer" in page and "word for word" in page
    pairs = client.get(f"/collections/{assignment.id}/pairs/").content.decode()
    assert "Copying confirmed" in pairs and "reviewer," in pairs
    listed = api_as(team.users["editor"]).get(f"/api/collections/{assignment.id}/pairs/").json()
    verdict = listed[0]["verdict"]
    assert (verdict["verdict"], verdict["author"], verdict["note"]) == (
        "confirmed", "reviewer", "word for word"
    )  # fmt: skip


def test_a_reviewer_sees_no_upload_settings_or_delete_control(team, pair):
    assignment, _, copier = pair
    client = Client()
    client.force_login(team.users["reviewer"])
    collection = client.get(f"/collections/{assignment.id}/").content.decode()
    for control in ("upload-button", "collection-settings", "delete-collection", "check-all"):
        assert control not in collection
    document = client.get(f"/documents/{copier.id}/").content.decode()
    assert "Delete" not in document and "Check again" not in document
    teacher = Client()
    teacher.force_login(team.users["teacher"])
    assert "upload-button" in teacher.get(f"/collections/{assignment.id}/").content.decode()
