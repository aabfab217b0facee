"""Who may do what with a workspace: a stranger is told nothing exists (404), a member
without the right is refused (403). `documents.policy` builds on this for collections."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from workspaces.models import Membership, Workspace
from workspaces.roles import Need, rights_of


def role_of(*, user: User | AnonymousUser, workspace_id: int) -> str | None:
    """The user's role in the workspace, or None for anyone else."""
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(workspace_id=workspace_id, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )


def member_workspaces(*, user: User | AnonymousUser) -> QuerySet[Workspace]:
    """The workspaces the user belongs to (with any role)."""
    if not user.is_authenticated:
        return Workspace.objects.none()
    return Workspace.objects.filter(memberships__user_id=user.pk)


def require(rights: frozenset[str], need: Need, what: str) -> None:
    """404 without any right (the thing does not exist for them), 403 without `need`."""
    if not rights:
        raise Http404(f"No such {what}.")
    if need not in rights:
        raise PermissionDenied(f"Your role does not allow this ({need} right needed).")


def workspace_for(
    *, user: User | AnonymousUser, workspace_id: int, need: Need = "read"
) -> Workspace:
    workspace = Workspace.objects.filter(id=workspace_id).first()
    role = role_of(user=user, workspace_id=workspace_id) if workspace is not None else None
    require(rights_of(role), need, "workspace")
    assert workspace is not None
    return workspace
