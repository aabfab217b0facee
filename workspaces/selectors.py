"""Reads: a user's workspaces, a workspace's members, invitations by token."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import F, QuerySet
from django.http import Http404

from workspaces.models import Invitation, Membership, Workspace


def workspace_list(*, user: User) -> QuerySet[Workspace]:
    """The user's workspaces, each with the user's `role`; the personal one first."""
    return (
        Workspace.objects.filter(memberships__user_id=user.pk)
        .annotate(role=F("memberships__role"))
        .order_by(F("personal_of").asc(nulls_last=True), "name", "id")
    )


def writable_workspaces(*, user: User) -> QuerySet[Workspace]:
    """Where the user may create collections (the workspace chooser)."""
    # `role` is annotated by workspace_list; django-stubs cannot see annotations.
    return workspace_list(user=user).filter(role__in=["admin", "teacher", "editor"])  # type: ignore[misc]


def member_list(*, workspace: Workspace) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(workspace=workspace)
        .select_related("user")
        .order_by("user__username")
    )


def invitation_get(*, token: str) -> Invitation:
    """The invitation with this token, or 404."""
    invitation = Invitation.objects.select_related("workspace").filter(token=token).first()
    if invitation is None:
        raise Http404("No such invitation.")
    return invitation
