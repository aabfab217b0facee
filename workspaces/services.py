"""Writes: workspaces, their members and invitation links."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from workspaces.errors import MemberConflict, MemberError
from workspaces.models import Invitation, Membership, Role, Workspace

INVITATION_DAYS = 7


def workspace_personal(*, user: User) -> Workspace:
    """The user's own workspace, made on first need with the user as its admin: a user who
    never joins another one works alone in it."""
    workspace = Workspace.objects.filter(personal_of_id=user.pk).first()
    if workspace is not None:
        return workspace
    try:
        with transaction.atomic():
            workspace = Workspace.objects.create(name=user.get_username(), personal_of=user)
            Membership.objects.create(workspace=workspace, user=user, role=Role.ADMIN)
    except IntegrityError:  # made meanwhile by another request of the same user
        return Workspace.objects.get(personal_of_id=user.pk)
    return workspace


def workspace_create(*, user: User, name: str) -> Workspace:
    """A shared workspace (a department, an office) with its creator as admin."""
    name = name.strip()
    if not name:
        raise MemberError("A workspace needs a name.", field="name")
    with transaction.atomic():
        workspace = Workspace.objects.create(name=name[:200])
        Membership.objects.create(workspace=workspace, user=user, role=Role.ADMIN)
    return workspace


def workspace_rename(*, workspace: Workspace, name: str) -> Workspace:
    name = name.strip()
    if not name:
        raise MemberError("A workspace needs a name.", field="name")
    workspace.name = name[:200]
    workspace.save(update_fields=["name"])
    return workspace


def _role_checked(role: str) -> str:
    if role not in Role.values:
        raise MemberError(f"role must be one of {', '.join(Role.values)}.", field="role")
    return role


def member_add(*, workspace: Workspace, username: str, role: str) -> Membership:
    """Make a user of this instance a member, by username."""
    _role_checked(role)
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise MemberError(f"No user is called {username!r}.", field="username")
    try:
        with transaction.atomic():
            return Membership.objects.create(workspace=workspace, user=user, role=role)
    except IntegrityError as error:
        raise MemberConflict(f"{username} is a member already.", field="username") from error


def member_role_set(*, workspace: Workspace, user_id: int, role: str) -> Membership:
    """Change a member's role; the workspace keeps at least one admin."""
    _role_checked(role)
    with transaction.atomic():
        member = _member_locked(workspace, user_id)
        if member.role == Role.ADMIN and role != Role.ADMIN:
            _keep_an_admin(workspace, member, "be demoted")
        member.role = role
        member.save(update_fields=["role"])
    return member


def member_remove(*, workspace: Workspace, user_id: int) -> None:
    """Remove a member (or leave, for oneself); the last admin and the owner of a personal
    workspace stay."""
    with transaction.atomic():
        member = _member_locked(workspace, user_id)
        if member.role == Role.ADMIN:
            _keep_an_admin(workspace, member, "leave")
        member.delete()


def _member_locked(workspace: Workspace, user_id: int) -> Membership:
    """The member's row, with every admin row of the workspace locked, so two concurrent
    demotions cannot both see another admin left."""
    list(Membership.objects.select_for_update().filter(workspace=workspace, role=Role.ADMIN))
    member = Membership.objects.filter(workspace=workspace, user_id=user_id).first()
    if member is None:
        raise MemberError("No such member of this workspace.", field="user")
    return member


def _keep_an_admin(workspace: Workspace, member: Membership, change: str) -> None:
    if workspace.personal_of_id == member.user_id:
        raise MemberConflict(f"The owner of a personal workspace cannot {change}.")
    admins = Membership.objects.filter(workspace=workspace, role=Role.ADMIN).count()
    if admins <= 1:
        raise MemberConflict(f"The last admin cannot {change}: make another member admin first.")


def invitation_create(*, workspace: Workspace, role: str, by: User) -> Invitation:
    """A link that makes its first (logged-in) visitor a member with `role`."""
    _role_checked(role)
    expires = timezone.now() + timedelta(days=INVITATION_DAYS)
    return Invitation.objects.create(
        workspace=workspace, role=role, created_by=by, expires_at=expires
    )


def invitation_accept(*, invitation: Invitation, user: User) -> Membership:
    """Join the invitation's workspace; a member already keeps their role (and the link)."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(id=invitation.id)
        if invitation.accepted_at is not None or invitation.expires_at <= timezone.now():
            raise MemberConflict("This invitation link was used already or has expired.")
        member = Membership.objects.filter(workspace=invitation.workspace, user_id=user.pk).first()
        if member is not None:
            return member
        invitation.accepted_by_id, invitation.accepted_at = user.pk, timezone.now()
        invitation.save(update_fields=["accepted_by", "accepted_at"])
        return Membership.objects.create(
            workspace=invitation.workspace, user=user, role=invitation.role
        )
