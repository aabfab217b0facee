"""What each role may do in its workspace: the rights the permission policy checks.

- read: collections, documents, reports, texts and originals, pairs, near-duplicates;
- review: record verdicts on pairs and passages;
- write: create collections, upload, check, delete, change a collection's settings;
- admin: manage the members and the workspace, share its archives.
Teacher and editor are two names for the same rights (a school, an editorial office).
"""

from __future__ import annotations

from typing import Literal

from workspaces.models import Role

Need = Literal["read", "review", "write", "admin"]

RIGHTS: dict[str, frozenset[str]] = {
    Role.ADMIN: frozenset({"read", "review", "write", "admin"}),
    Role.TEACHER: frozenset({"read", "review", "write"}),
    Role.EDITOR: frozenset({"read", "review", "write"}),
    Role.REVIEWER: frozenset({"read", "review"}),
}
# What members of a workspace may do with an archive another workspace shares with it.
SHARED_ARCHIVE_RIGHTS = frozenset({"read"})
NO_RIGHTS: frozenset[str] = frozenset()


def rights_of(role: str | None) -> frozenset[str]:
    return RIGHTS.get(role, NO_RIGHTS) if role is not None else NO_RIGHTS
