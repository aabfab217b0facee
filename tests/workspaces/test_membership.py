"""Workspaces and their members through the API: create, add, change a role, remove, leave,
invitation links; the last admin stays; collections are made in a workspace."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from documents.models import Collection
from tests.workspaces.conftest import api_as
from workspaces.models import Invitation, Membership, Workspace

pytestmark = pytest.mark.django_db


def test_a_user_works_alone_in_a_personal_workspace_made_on_first_need(api, owner):
    answer = api.post("/api/collections/", {"name": "Essay 1"}, format="json")
    assert answer.status_code == 201
    personal = Workspace.objects.get(personal_of=owner)
    assert answer.json()["workspace"] == personal.id
    listed = api.get("/api/workspaces/").json()
    assert listed == [{"id": personal.id, "name": "owner", "personal": True, "role": "admin"}]


def test_it_creates_a_workspace_with_its_creator_as_admin(api, owner):
    answer = api.post("/api/workspaces/", {"name": "History"}, format="json")
    assert answer.status_code == 201
    body = answer.json()
    assert (body["name"], body["role"], body["personal"]) == ("History", "admin", False)
    assert Membership.objects.get(workspace_id=body["id"], user=owner).role == "admin"


def test_an_admin_adds_members_by_username(team):
    admin = api_as(team.users["admin"])
    url = f"/api/workspaces/{team.workspace.id}/members/"
    answer = admin.post(url, {"username": "outsider", "role": "reviewer"}, format="json")
    assert answer.status_code == 201
    assert answer.json()["username"] == "outsider" and answer.json()["role"] == "reviewer"
    again = admin.post(url, {"username": "outsider", "role": "teacher"}, format="json")
    assert again.status_code == 409 and "member already" in again.json()["username"][0]
    nobody = admin.post(url, {"username": "nobody", "role": "teacher"}, format="json")
    assert nobody.status_code == 400 and "nobody" in nobody.json()["username"][0]
    wrong = admin.post(url, {"username": "outsider", "role": "boss"}, format="json")
    assert wrong.status_code == 400 and "role" in wrong.json()


def test_only_admins_manage_members_and_strangers_learn_nothing(team):
    url = f"/api/workspaces/{team.workspace.id}/members/"
    body = {"username": "outsider", "role": "teacher"}
    for role in ("teacher", "editor", "reviewer"):
        assert api_as(team.users[role]).post(url, body, format="json").status_code == 403
    assert api_as(team.outsider).post(url, body, format="json").status_code == 404
    assert api_as(team.outsider).get(f"/api/workspaces/{team.workspace.id}/").status_code == 404
    assert not Membership.objects.filter(user=team.outsider, workspace=team.workspace).exists()


def test_a_role_is_changed_and_the_last_admin_is_never_demoted(team):
    admin = api_as(team.users["admin"])
    base = f"/api/workspaces/{team.workspace.id}/members"
    reviewer = team.users["reviewer"]
    answer = admin.patch(f"{base}/{reviewer.id}/", {"role": "teacher"}, format="json")
    assert answer.status_code == 200 and answer.json()["role"] == "teacher"
    alone = admin.patch(f"{base}/{team.users['admin'].id}/", {"role": "teacher"}, format="json")
    assert alone.status_code == 409 and "last admin" in alone.json()["detail"]
    assert admin.delete(f"{base}/{team.users['admin'].id}/").status_code == 409
    admin.patch(f"{base}/{reviewer.id}/", {"role": "admin"}, format="json")
    assert admin.delete(f"{base}/{team.users['admin'].id}/").status_code == 204  # may leave now


def test_a_member_leaves_and_an_admin_removes_a_member(team):
    base = f"/api/workspaces/{team.workspace.id}/members"
    editor, teacher = team.users["editor"], team.users["teacher"]
    assert api_as(editor).delete(f"{base}/{teacher.id}/").status_code == 403  # not an admin
    assert api_as(editor).delete(f"{base}/{editor.id}/").status_code == 204  # leaves
    assert api_as(team.users["admin"]).delete(f"{base}/{teacher.id}/").status_code == 204
    left = set(team.workspace.memberships.values_list("user__username", flat=True))
    assert left == {"owner", "reviewer"}
    assert api_as(editor).get(f"/api/workspaces/{team.workspace.id}/").status_code == 404


def test_the_owner_of_a_personal_workspace_stays_its_admin(api, owner, django_user_model):
    personal = api.get("/api/workspaces/").json()[0]
    other = django_user_model.objects.create_user(username="ta")
    base = f"/api/workspaces/{personal['id']}/members"
    api.post(f"{base}/", {"username": "ta", "role": "admin"}, format="json")
    assert api.delete(f"{base}/{owner.id}/").status_code == 409
    assert api_as(other).patch(f"{base}/{owner.id}/", {"role": "reviewer"}).status_code == 409


def test_an_invitation_link_makes_its_visitor_a_member_once(team, client, django_user_model):
    admin = api_as(team.users["admin"])
    answer = admin.post(
        f"/api/workspaces/{team.workspace.id}/invitations/", {"role": "reviewer"}, format="json"
    )
    assert answer.status_code == 201
    url = answer.json()["url"]
    assert url.startswith("http://testserver/invitations/")
    newcomer = django_user_model.objects.create_user(username="newcomer", password="x")
    client.force_login(newcomer)
    path = url.removeprefix("http://testserver")
    assert b"invited as <b>reviewer</b>" in client.get(path).content
    joined = client.post(path)
    assert joined["Location"] == f"/workspaces/{team.workspace.id}/"
    assert Membership.objects.get(user=newcomer, workspace=team.workspace).role == "reviewer"
    token = answer.json()["token"]
    used = api_as(team.outsider).post(f"/api/invitations/{token}/")
    assert used.status_code == 409
    assert not Membership.objects.filter(user=team.outsider, workspace=team.workspace).exists()


def test_an_expired_invitation_is_refused_and_an_unknown_one_is_404(team):
    admin = api_as(team.users["admin"])
    answer = admin.post(f"/api/workspaces/{team.workspace.id}/invitations/", {}, format="json")
    assert answer.json()["role"] == "teacher"  # the default
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    outsider = api_as(team.outsider)
    assert outsider.post(f"/api/invitations/{answer.json()['token']}/").status_code == 409
    assert outsider.post("/api/invitations/nope/").status_code == 404


@pytest.mark.parametrize(
    ("role", "expected"), [("teacher", 201), ("editor", 201), ("reviewer", 403), ("admin", 201)]
)
def test_collections_are_made_in_a_workspace_by_those_who_may(team, role, expected):
    body = {"name": "Essay 2", "workspace": team.workspace.id}
    answer = api_as(team.users[role]).post("/api/collections/", body, format="json")
    assert answer.status_code == expected
    if expected == 201:
        assert Collection.objects.get(id=answer.json()["id"]).workspace == team.workspace
    outsider = api_as(team.outsider).post("/api/collections/", body, format="json")
    assert outsider.status_code == 404


def test_every_member_lists_the_workspace_collections(team):
    made = api_as(team.users["teacher"]).post(
        "/api/collections/", {"name": "Essay 2", "workspace": team.workspace.id}, format="json"
    )
    for role in ("admin", "editor", "reviewer"):
        listed = api_as(team.users[role]).get("/api/collections/").json()
        assert [c["id"] for c in listed] == [made.json()["id"]]
    assert api_as(team.outsider).get("/api/collections/").json() == []


def test_an_admin_renames_the_workspace(team):
    url = f"/api/workspaces/{team.workspace.id}/"
    assert api_as(team.users["teacher"]).patch(url, {"name": "x"}, format="json").status_code == 403
    answer = api_as(team.users["admin"]).patch(url, {"name": " History "}, format="json")
    assert answer.status_code == 200 and answer.json()["name"] == "History"
    assert [m["username"] for m in answer.json()["members"]] == [
        "editor", "owner", "reviewer", "teacher"
    ]  # fmt: skip


def test_a_used_or_expired_link_says_so_on_its_page(team, client):
    invitation = Invitation.objects.create(
        workspace=team.workspace, role="teacher", expires_at=timezone.now() - timedelta(days=1)
    )
    client.force_login(team.outsider)
    page = client.get(f"/invitations/{invitation.token}/").content.decode()
    assert 'id="invitation-gone"' in page and 'id="join"' not in page


def test_the_page_offers_only_workspaces_where_the_user_may_create(team, client):
    client.force_login(team.users["reviewer"])
    page = client.get("/collections/").content.decode()
    assert "History department" not in page  # a reviewer there
    client.post("/collections/", {"name": "Essay 9", "kind": "assignment",
                                  "workspace": team.workspace.id})  # fmt: skip
    assert not Collection.objects.filter(name="Essay 9").exists()
    client.post("/collections/", {"name": "Essay 9", "kind": "assignment"})
    made = Collection.objects.get(name="Essay 9")
    assert made.workspace.personal_of == team.users["reviewer"]


def test_the_workspace_page_makes_a_link_that_joins(team, client, django_user_model):
    client.force_login(team.users["admin"])
    page = client.post(f"/workspaces/{team.workspace.id}/invitations/", {"role": "editor"})
    invitation = Invitation.objects.get()
    assert f"/invitations/{invitation.token}/" in page.content.decode()
    newcomer = django_user_model.objects.create_user(username="newcomer")
    client.force_login(newcomer)
    client.post(f"/invitations/{invitation.token}/")
    assert Membership.objects.get(user=newcomer, workspace=team.workspace).role == "editor"
