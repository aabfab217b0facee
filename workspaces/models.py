"""Workspaces (a department, an editorial office, a user's own) and who belongs to them.

What each role may do is in `workspaces.roles`; collections point at their workspace
(`documents.Collection.workspace`).
"""

import secrets

from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    ADMIN = "admin", "Admin"
    TEACHER = "teacher", "Teacher"
    EDITOR = "editor", "Editor"
    REVIEWER = "reviewer", "Reviewer"


class Workspace(models.Model):
    name = models.CharField(max_length=200)
    # The user whose personal workspace this is; None for a shared one (a department).
    personal_of = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="personal_workspace",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=20, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["workspace_id", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "user"], name="membership_unique")
        ]


def _token() -> str:
    return secrets.token_urlsafe(32)


class Invitation(models.Model):
    """A link that makes whoever opens it (logged in) a member with `role`: no mail needed.
    Used once; it expires at `expires_at`."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True, default=_token, editable=False)
    role = models.CharField(max_length=20, choices=Role.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
