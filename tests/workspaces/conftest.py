"""A shared workspace with a member in each role, and a user of another workspace."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from rest_framework.test import APIClient

from workspaces import services
from workspaces.models import Role, Workspace

ROLES = ("admin", "teacher", "editor", "reviewer")


@dataclass
class Team:
    workspace: Workspace
    users: dict  # role -> user (the owner is the admin)
    outsider: object  # a member of another workspace only


@pytest.fixture
def team(owner, django_user_model) -> Team:
    workspace = services.workspace_create(user=owner, name="History department")
    users = {"admin": owner}
    for role in ROLES[1:]:
        user = django_user_model.objects.create_user(username=role, password=f"{role}-pass")
        services.member_add(workspace=workspace, username=role, role=role)
        users[role] = user
    outsider = django_user_model.objects.create_user(username="outsider", password="x")
    services.workspace_create(user=outsider, name="Physics department")
    return Team(workspace=workspace, users=users, outsider=outsider)


def api_as(user) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


__all__ = ["ROLES", "Role", "Team", "api_as"]
