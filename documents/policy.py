"""The one permission policy of collections, documents and imports: every page, API
endpoint and download reads them through these functions.

A user's rights on a collection are those of their role in its workspace
(`workspaces.roles`); members of a workspace an archive is shared with may read it. Without
any right the thing does not exist for them (404, so ids reveal nothing); with some rights
but not the one needed, 403.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as AccountUser
from django.db.models import OuterRef, Q, QuerySet, Subquery

from documents.models import ArchiveImport, ArchiveShare, Collection, Document
from workspaces.models import Membership
from workspaces.policy import member_workspaces, require, role_of
from workspaces.roles import NO_RIGHTS, SHARED_ARCHIVE_RIGHTS, Need, rights_of

User = AccountUser | AnonymousUser


def collection_rights(*, user: User, collection: Collection) -> frozenset[str]:
    """What the user may do with the collection: its workspace role's rights, or reading an
    archive shared with one of the user's workspaces."""
    return _rights_as(user, collection, role_of(user=user, workspace_id=collection.workspace_id))


def _rights_as(user: User, collection: Collection, role: str | None) -> frozenset[str]:
    rights = rights_of(role)
    if rights or collection.kind != Collection.Kind.ARCHIVE:
        return rights
    shared = ArchiveShare.objects.filter(
        archive=collection, workspace__in=member_workspaces(user=user)
    )
    return SHARED_ARCHIVE_RIGHTS if shared.exists() else NO_RIGHTS


def collection_for(*, user: User, collection_id: int, need: Need = "read") -> Collection:
    """The collection when the user has the `need` right on it; 404 or 403 otherwise (and
    404 for one being deleted)."""
    collection = _with_role(
        Collection.objects.filter(id=collection_id, deleting=False).select_related("workspace"),
        user,
        "workspace_id",
    ).first()
    rights = _rights(user, collection, collection)
    require(rights, need, "collection")
    assert collection is not None
    return collection


def document_for(*, user: User, document_id: int, need: Need = "read") -> Document:
    """The document when the user has the `need` right on its collection (as above)."""
    document = (
        Document.objects.filter(id=document_id, collection__deleting=False)
        .select_related("collection__workspace")
        .first()
    )
    rights = collection_rights(user=user, collection=document.collection) if document else NO_RIGHTS
    require(rights, need, "document")
    assert document is not None
    return document


def import_for(*, user: User, import_id: int, need: Need = "write") -> ArchiveImport:
    """A bulk import when the user has the `need` right on its archive (as above)."""
    job = _with_role(
        ArchiveImport.objects.filter(id=import_id, collection__deleting=False).select_related(
            "collection"
        ),
        user,
        "collection__workspace_id",
    ).first()
    rights = _rights(user, job, job.collection if job else None)
    require(rights, need, "import")
    assert job is not None
    return job


def _with_role(rows: QuerySet, user: User, workspace_field: str) -> QuerySet:
    """`rows` with the user's role in their workspace as `user_role`: read with the row, so
    checking costs no query of its own."""
    member = user.pk if isinstance(user, AccountUser) else 0  # anonymous: no id, no role
    roles = Membership.objects.filter(workspace_id=OuterRef(workspace_field), user_id=member)
    return rows.annotate(user_role=Subquery(roles.values("role")[:1]))


def _rights(user: User, row: object | None, collection: Collection | None) -> frozenset[str]:
    if row is None or collection is None:
        return NO_RIGHTS
    return _rights_as(user, collection, row.user_role)  # type: ignore[attr-defined]


def readable_collections(*, user: User) -> QuerySet[Collection]:
    """The collections of the user's workspaces and the archives shared with them."""
    workspaces = member_workspaces(user=user).values("id")
    shared = ArchiveShare.objects.filter(workspace__in=workspaces).values("archive_id")
    return Collection.objects.filter(
        Q(workspace__in=workspaces) | Q(kind=Collection.Kind.ARCHIVE, id__in=shared),
        deleting=False,
    )
