"""The copied-pairs page of a collection: every pair once, both shares, most copied first,
filtered by a minimum share, and as a CSV download."""

from __future__ import annotations

import csv
import io

import pytest

from documents import selectors, services
from documents.models import Collection
from tests.documents.factories import WATER, processed

pytestmark = pytest.mark.django_db

TRAINS = (
    "The railway company announced a new timetable for the winter season. "
    "Trains between the two largest cities will run every half hour during the day. "
    "Passengers complained that the night connections were cancelled without notice. "
    "The company promised to review the decision after listening to the travellers."
)
UNRELATED = (
    "My grandmother grows tomatoes, beans and pumpkins in her small garden. "
    "Every autumn she makes jam from the plums of the old tree behind the house."
)


@pytest.fixture
def collections(owner):
    archive = services.collection_create(owner=owner, name="Published", kind="archive")
    assignment = services.collection_create(owner=owner, name="Essay 1")
    documents = {
        "trains": processed(archive, "trains.txt", TRAINS.encode()),
        "water": processed(assignment, "water.txt", WATER.encode()),
        "copier": processed(
            assignment, "copier.txt", ("Cooking pasta needs salt and time. " + WATER[62:]).encode()
        ),
        "unrelated": processed(assignment, "garden.txt", UNRELATED.encode()),
        "reporter": processed(
            assignment, "reporter.txt", (TRAINS[:150] + " " + UNRELATED[:70]).encode()
        ),
    }
    return assignment, archive, documents


def test_each_pair_is_listed_once_with_both_shares_most_copied_first(collections):
    assignment, _, d = collections
    pairs = selectors.collection_pairs(collection=assignment, visible=Collection.objects.all())
    by_pair = {frozenset((p.document, p.other)): p for p in pairs}
    assert set(by_pair) == {
        frozenset((d["copier"].id, d["water"].id)),
        frozenset((d["reporter"].id, d["trains"].id)),
        frozenset((d["reporter"].id, d["unrelated"].id)),
    }
    peers = by_pair[frozenset((d["copier"].id, d["water"].id))]
    # The copier is mostly the water report; the report is mostly in the copier.
    assert peers.other_share is not None and peers.share >= peers.other_share > 0.5
    assert peers.document == d["copier"].id  # the larger share first
    archived = by_pair[frozenset((d["reporter"].id, d["trains"].id))]
    assert (archived.document, archived.other_collection) == (d["reporter"].id, "Published")
    assert archived.other_share is None  # the archive's side is not stored
    strongest = [p.strongest for p in pairs]
    assert strongest == sorted(strongest, reverse=True)


def test_the_page_filters_by_a_minimum_share(client, owner, collections):
    assignment, _, d = collections
    client.force_login(owner)
    everything = selectors.collection_pairs(collection=assignment, visible=Collection.objects.all())
    cut = sorted(p.strongest for p in everything)[1] * 100  # above the weakest pair
    page = client.get(f"/collections/{assignment.id}/pairs/", {"min": f"{cut:.4f}"})
    shown = page.content.decode()
    assert page.status_code == 200
    assert shown.count('<tr data-document="') == sum(p.strongest * 100 >= cut for p in everything)
    assert shown.count('<tr data-document="') == len(everything) - 1
    assert f'href="/documents/{d["copier"].id}/report/?source={d["water"].id}"' in shown
    # The CSV keeps the page's filter exactly (30.4 is not rounded to 30).
    assert f'href="?min={cut:.4f}'.rstrip("0") in shown

    assert client.get(f"/collections/{assignment.id}/pairs/", {"min": "lots"}).status_code == 200
    empty = client.get(f"/collections/{assignment.id}/pairs/", {"min": "100"}).content.decode()
    assert "No pair above 100%" in empty


def test_the_pairs_download_as_csv(client, owner, collections):
    assignment, _, d = collections
    client.force_login(owner)
    response = client.get(f"/collections/{assignment.id}/pairs/", {"format": "csv"})
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    text = response.content.decode("utf-8-sig")
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header[:3] == ["document", "other document", "other's collection"]
    pairs = selectors.collection_pairs(collection=assignment, visible=Collection.objects.all())
    assert [(r[0], r[1]) for r in rows] == [(p.title, p.other_title) for p in pairs]
    copier_row = next(r for r in rows if r[0] == "copier.txt")
    assert float(copier_row[3]) >= float(copier_row[4]) > 50
    assert copier_row[6].endswith(f"/documents/{d['copier'].id}/report/?source={d['water'].id}")
    archive_row = next(r for r in rows if r[1] == "trains.txt")
    assert (archive_row[2], archive_row[4]) == ("Published", "")


def test_the_collection_page_links_to_its_pairs(client, owner, collections):
    assignment, _, _ = collections
    client.force_login(owner)
    page = client.get(f"/collections/{assignment.id}/").content.decode()
    assert f'href="/collections/{assignment.id}/pairs/"' in page


def test_another_users_pairs_are_not_found(client, stranger, collections):
    assignment, _, _ = collections
    client.force_login(stranger)
    assert client.get(f"/collections/{assignment.id}/pairs/").status_code == 404


def test_the_api_lists_the_pairs(api, collections):
    assignment, _, d = collections
    response = api.get(f"/api/collections/{assignment.id}/pairs/")
    assert response.status_code == 200
    pairs = selectors.collection_pairs(collection=assignment, visible=Collection.objects.all())
    assert [(p["document"], p["other"]) for p in response.json()] == [
        (p.document, p.other) for p in pairs
    ]
    first = next(p for p in response.json() if p["document"] == d["copier"].id)
    assert first["other"] == d["water"].id and first["share"] >= first["other_share"] > 0.5
    high = api.get(f"/api/collections/{assignment.id}/pairs/", {"min": "100"})
    assert high.json() == []
    for wrong in ("lots", "-1", "101", "nan"):
        answer = api.get(f"/api/collections/{assignment.id}/pairs/", {"min": wrong})
        assert answer.status_code == 400 and "percentage" in answer.json()["detail"]


def test_the_api_hides_other_users_pairs(collections, stranger):
    from rest_framework.test import APIClient

    assignment, _, _ = collections
    client = APIClient()
    client.force_authenticate(stranger)
    assert client.get(f"/api/collections/{assignment.id}/pairs/").status_code == 404


def test_names_in_the_csv_cannot_start_a_formula(client, owner, collections):
    assignment, _, d = collections
    Document = type(d["copier"])
    Document.objects.filter(id=d["copier"].id).update(filename='=HYPERLINK("http://x")')
    client.force_login(owner)
    text = client.get(f"/collections/{assignment.id}/pairs/", {"format": "csv"}).content
    rows = list(csv.reader(io.StringIO(text.decode("utf-8-sig"))))
    assert ['\'=HYPERLINK("http://x")'] == [r[0] for r in rows if "HYPERLINK" in r[0]]


def test_an_archives_pairs_link_to_the_copiers_report(client, owner, collections):
    """On the archive's page its own document comes first, but only the copier's report
    holds the pair: the page and the CSV link there, with the archive document as source."""
    _, archive, d = collections
    client.force_login(owner)
    wanted = f"/documents/{d['reporter'].id}/report/?source={d['trains'].id}"
    page = client.get(f"/collections/{archive.id}/pairs/").content.decode()
    assert f'href="{wanted}"' in page.replace("&amp;", "&")
    text = client.get(f"/collections/{archive.id}/pairs/", {"format": "csv"}).content
    rows = list(csv.reader(io.StringIO(text.decode("utf-8-sig"))))[1:]
    assert [(r[0], r[1], r[6].endswith(wanted)) for r in rows] == [
        ("trains.txt", "reporter.txt", True)
    ]
    report = client.get(wanted).content.decode()
    assert "No copied passages were found" not in report


def test_the_pairs_come_in_pages_and_the_csv_holds_them_all(
    client, api, owner, collections, monkeypatch
):
    from documents import views

    assignment, _, _ = collections
    monkeypatch.setattr(views, "PAIRS_PER_PAGE", 2)
    everything = selectors.collection_pairs(collection=assignment, visible=Collection.objects.all())
    assert len(everything) == 3
    client.force_login(owner)
    first = client.get(f"/collections/{assignment.id}/pairs/").content.decode()
    assert first.count('<tr data-document="') == 2 and "page 1 of 2 (3 pairs" in first
    second = client.get(f"/collections/{assignment.id}/pairs/", {"page": 2}).content.decode()
    assert second.count('<tr data-document="') == 1 and 'rel="prev"' in second
    csv_text = client.get(f"/collections/{assignment.id}/pairs/", {"format": "csv"}).content
    assert len(list(csv.reader(io.StringIO(csv_text.decode("utf-8-sig"))))) == 1 + 3
    page = api.get(f"/api/collections/{assignment.id}/pairs/", {"limit": 2, "offset": 2}).json()
    assert page["count"] == 3 and [p["document"] for p in page["results"]] == [
        everything[2].document
    ]
    assert api.get(f"/api/collections/{assignment.id}/pairs/", {"limit": "x"}).status_code == 400
