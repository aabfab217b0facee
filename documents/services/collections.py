"""Collections: create, rename, change kind, choose the archives they are checked against."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction

from documents import selectors
from documents.models import ArchiveShare, Collection
from documents.services.errors import CollectionError
from documents.services.requeue import documents_reanalyze
from workspaces.models import Workspace
from workspaces.services import workspace_personal

logger = logging.getLogger(__name__)


def collection_create(
    *,
    owner: User,
    name: str,
    kind: str = Collection.Kind.ASSIGNMENT,
    workspace: Workspace | None = None,
) -> Collection:
    """A collection of `workspace` (the owner's personal one when None) made by `owner`."""
    name, kind = _collection_fields(name, kind)
    if workspace is None:
        workspace = workspace_personal(user=owner)
    return Collection.objects.create(owner=owner, name=name, kind=kind, workspace=workspace)


def _collection_fields(name: str, kind: str) -> tuple[str, str]:
    name = name.strip()
    if not name:
        raise CollectionError("A collection needs a name.")
    if kind not in Collection.Kind.values:
        raise CollectionError(f"kind must be one of {', '.join(Collection.Kind.values)}.")
    return name[:200], kind


def collection_update(*, collection: Collection, name: str, kind: str) -> Collection:
    """Rename the collection or change its kind.

    An archive turned into an assignment leaves the archive selections of other collections
    and stops being shared; an assignment turned into an archive drops its own selection
    (archives are not checked against archives). Documents processed from then on see the new
    scopes; reports made before stay as they are until their documents are checked again.
    """
    name, kind = _collection_fields(name, kind)
    with transaction.atomic():
        if kind != collection.kind:
            if collection.kind == Collection.Kind.ARCHIVE:
                Collection.archives.through.objects.filter(to_collection=collection).delete()
                ArchiveShare.objects.filter(archive=collection).delete()
            else:
                collection.archives.clear()
                collection.all_archives = True  # its own choice is gone, not lost
        collection.name, collection.kind = name, kind
        collection.save(update_fields=["name", "kind", "all_archives"])
    return collection


def collection_archives_set(*, collection: Collection, archive_ids: Iterable[int]) -> None:
    """Check `collection` against these of the archives its workspace can use (none
    selected: all of them)."""
    wanted = list(archive_ids)
    allowed = selectors.archive_choices(collection=collection).filter(id__in=wanted)
    with transaction.atomic():
        collection.archives.set(allowed)
        # Only an empty choice means all: ids that are no (longer an) archive leave none.
        collection.all_archives = not wanted
        collection.save(update_fields=["all_archives"])


def collection_recheck(*, collection_id: int) -> int:
    """Queue every finished document of the collection that is checked (not its templates:
    their text is all they need) for the pipeline again; returns how many."""
    return documents_reanalyze(
        documents=selectors.checked_documents(collection_id=collection_id),
        collection_id=collection_id,
    )


def archive_share(*, archive: Collection, workspace_id: int) -> ArchiveShare:
    """Share the archive read-only with another workspace: its collections are checked
    against it (when they check every archive, or choose it) and its members read it."""
    if archive.kind != Collection.Kind.ARCHIVE:
        raise CollectionError("Only an archive can be shared.", field="workspace")
    if workspace_id == archive.workspace_id:
        raise CollectionError("The archive belongs to that workspace already.", field="workspace")
    workspace = Workspace.objects.filter(id=workspace_id).first()
    if workspace is None:
        raise CollectionError(f"No workspace has the id {workspace_id}.", field="workspace")
    share, _ = ArchiveShare.objects.get_or_create(archive=archive, workspace=workspace)
    return share


def archive_unshare(*, archive: Collection, workspace_id: int) -> None:
    """Stop sharing; the other workspace's collections no longer choose it either."""
    with transaction.atomic():
        ArchiveShare.objects.filter(archive=archive, workspace_id=workspace_id).delete()
        Collection.archives.through.objects.filter(
            to_collection=archive, from_collection__workspace_id=workspace_id
        ).delete()
