"""An archive shared read-only with another workspace: its assignments are checked against
it, its members read it and never change it, and the archive's own workspace does not see
the other workspace's documents."""

from __future__ import annotations

import pytest
from django.test import Client

from documents import selectors, services
from tests.documents.factories import WATER, WATER_COPIED, processed
from tests.workspaces.conftest import api_as
from workspaces.models import Workspace

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared(team):
    """The department's archive shared with the outsider's workspace, and an assignment
    of the outsider's workspace."""
    archive = services.collection_create(
        owner=team.users["admin"], name="Repository", kind="archive", workspace=team.workspace
    )
    physics = Workspace.objects.get(name="Physics department")
    answer = api_as(team.users["admin"]).post(
        f"/api/collections/{archive.id}/shares/", {"workspace": physics.id}, format="json"
    )
    assert answer.status_code == 201
    assignment = services.collection_create(owner=team.outsider, name="Lab 1", workspace=physics)
    return archive, assignment


def test_the_other_workspace_checks_against_the_shared_archive(shared, team):
    archive, assignment = shared
    source = processed(archive, "water.txt", WATER.encode())
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    assert [s.document for s in selectors.report_get(document=copier).sources] == [source.id]
    outsider = api_as(team.outsider)
    assert outsider.get(f"/api/documents/{copier.id}/report/").status_code == 200
    assert outsider.get(f"/api/documents/{source.id}/text/").status_code == 200


def test_the_other_workspace_reads_the_archive_but_never_changes_it(shared, team):
    archive, _ = shared
    outsider = api_as(team.outsider)
    assert outsider.get(f"/api/collections/{archive.id}/").status_code == 200
    assert outsider.patch(f"/api/collections/{archive.id}/", {"name": "x"}).status_code == 403
    assert outsider.delete(f"/api/collections/{archive.id}/").status_code == 403
    upload = outsider.post(f"/api/collections/{archive.id}/documents/", {"file": b""})
    assert upload.status_code == 403
    share = outsider.post(f"/api/collections/{archive.id}/shares/", {"workspace": 1})
    assert share.status_code == 403


def test_the_archive_workspace_does_not_see_the_other_workspace_copiers(shared, team, browser):
    archive, assignment = shared
    source = processed(archive, "water.txt", WATER.encode())
    processed(assignment, "copier.txt", WATER_COPIED.encode())
    admin = api_as(team.users["admin"])
    assert admin.get(f"/api/collections/{archive.id}/pairs/").json() == []
    page = browser.get(f"/documents/{source.id}/").content
    assert b"copier.txt" not in page


def test_unsharing_takes_the_archive_out_of_the_other_workspace(shared, team):
    archive, assignment = shared
    assert archive.id in selectors.collection_scope(collection=assignment)
    services.collection_archives_set(collection=assignment, archive_ids=[archive.id])
    admin = api_as(team.users["admin"])
    url = f"/api/collections/{archive.id}/shares/{assignment.workspace_id}/"
    assert admin.delete(url).status_code == 204
    assert archive.id not in selectors.collection_scope(collection=assignment)
    assert list(assignment.archives.all()) == []
    assert api_as(team.outsider).get(f"/api/collections/{archive.id}/").status_code == 404


def test_only_an_archive_is_shared_with_an_existing_workspace(team):
    admin = api_as(team.users["admin"])
    essay = services.collection_create(
        owner=team.users["admin"], name="Essay", workspace=team.workspace
    )
    refused = admin.post(f"/api/collections/{essay.id}/shares/", {"workspace": 10**6})
    assert refused.status_code == 400 and "archive" in refused.json()["workspace"][0]


def test_the_shared_archive_page_reads_as_read_only(shared, team):
    archive, _ = shared
    client = Client()
    client.force_login(team.outsider)
    page = client.get(f"/collections/{archive.id}/").content.decode()
    assert "an archive shared with you" in page and "you may read it, not change it" in page
    assert "upload-button" not in page and "archive-shares" not in page
